import { describe, expect, it } from 'vitest';
import { claimReference } from '../claim-reference.ts';
import type { FlowNode } from './document.ts';
import { planStep, type TypedStep } from './planned-step.ts';
import { stepLabel } from '../../../core/step-kinds.ts';

const node = (type: string, data: Record<string, unknown>, id = 'invoice'): FlowNode => ({ id, type, position: { x: 0, y: 0 }, data });

const invoice = node('http.request', {
  label: 'Create invoice', key: 'inv-{{ trigger.body.id }}', retry: { max: 1 }, extra: 'kept',
  request: { method: 'POST', url: 'https://billing.test/invoices' },
});

describe('planStep', () => {
  it('reads a step once into its typed settings, with its label and whether it acts outside', () => {
    const step = planStep(invoice);
    expect(step.problem).toBeUndefined();
    expect(step).toMatchObject({ id: 'invoice', type: 'http.request', label: 'Create invoice', sideEffect: true });
    if (step.type !== 'http.request' || step.problem !== undefined) throw new Error('expected a typed http.request');
    expect(step.data.request.method).toBe('POST');
    expect(step.data.retry?.max).toBe(1);
    // Fields a newer editor wrote are kept, as the document schema keeps them.
    expect(step.data.extra).toBe('kept');
  });

  it('names a step by its id when it has no label', () => {
    expect(planStep(node('transform', { outputs: { a: 'b' } }, 'tidy')).label).toBe('tidy');
    expect(planStep(node('transform', { label: '  ', outputs: { a: 'b' } }, 'tidy')).label).toBe('tidy');
    expect(stepLabel({ id: 'tidy', data: { label: 'Tidy up' } })).toBe('Tidy up');
  });

  it('keeps a step it cannot run, with the reason in plain words, for the run that reaches it', () => {
    const unknown = planStep(node('fax.send', { number: '1' }, 'fax'));
    expect(unknown.problem).toBe('This server cannot run steps of kind "fax.send".');
    const invalid = planStep(node('http.request', { label: 'Create invoice', request: { method: 'POST' } }));
    expect(invalid.problem).toBe('Step "Create invoice" (invoice) needs a URL.');
    expect(invalid.sideEffect).toBe(true);
  });
});

describe('claimReference', () => {
  const render = (template: string) => template.replace('{{ trigger.body.id }}', '4417');
  const typed = (data: Record<string, unknown>) => {
    const step = planStep(node('http.request', { request: { method: 'POST', url: 'https://billing.test/' }, ...data }));
    if (step.problem !== undefined) throw new Error(step.problem);
    return step as TypedStep;
  };

  it('claims in the step\'s own scope for 30 days by default', () => {
    expect(claimReference(typed({ key: 'inv-{{ trigger.body.id }}' }), { flowId: 'flow_1', testScope: null }, render)).toEqual({
      scope: 'flow_1:invoice', key: 'inv-4417', ttlMs: 30 * 86_400_000,
    });
  });

  it('uses a shared scope and keep time when the step names them', () => {
    expect(claimReference(typed({ key: 'inv-{{ trigger.body.id }}', keyScope: 'billing', keyTtl: '2h' }), { flowId: 'flow_1', testScope: null }, render)).toEqual({
      scope: 'billing', key: 'inv-4417', ttlMs: 7_200_000,
    });
  });
});
