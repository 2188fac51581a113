import { describe, expect, it } from 'vitest';
import { validateFlow } from './validate.ts';
import { keySamples } from './key-samples.ts';

function flow(sampleInput: unknown, data: Record<string, unknown> = {}) {
  return {
    format: 'onceflow/v1',
    name: 'Invoices',
    ...(sampleInput === undefined ? {} : { sampleInput }),
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'invoice', type: 'http.request', position: { x: 0, y: 0 }, data: { label: 'Create invoice', key: 'inv-{{ trigger.body.customer.id }}', request: { method: 'POST', url: 'https://x.test' }, ...data } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }],
  };
}

describe('weak keys in the flow problems (editor, publish, import)', () => {
  it('makes a key field missing from the sample an error that stops publishing', () => {
    const result = validateFlow(flow({ order: { id: '4417' } }));
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      expect.objectContaining({ severity: 'error', code: 'key_field_missing', nodeId: 'invoice', field: 'key' }),
    ]);
    expect(result.problems[0]?.message).toMatch(/^Step "Create invoice" \(invoice\): This key uses \{\{ trigger\.body\.customer\.id \}\}, which the sample input does not have/);
  });

  it('accepts the key once its exact text is confirmed, and not after it is edited', () => {
    expect(validateFlow(flow({ order: { id: '4417' } }, { keyConfirmed: 'inv-{{ trigger.body.customer.id }}' }))).toMatchObject({ ok: true, problems: [] });
    expect(validateFlow(flow({ order: { id: '4417' } }, { keyConfirmed: 'inv-{{ trigger.body.customer }}' })).ok).toBe(false);
  });

  it('does not check against a sample that was never filled in', () => {
    expect(validateFlow(flow(undefined)).ok).toBe(true);
    expect(validateFlow(flow({})).ok).toBe(true);
    expect(keySamples({ name: 'x', sampleInput: [] })).toEqual([]);
    expect(keySamples({ name: 'x', sampleInput: { id: 1 } }).map((sample) => sample.name)).toEqual(['the sample input']);
  });

  it('warns, without blocking, about a key made of a total', () => {
    const result = validateFlow(flow({ order: { total: 5 } }, { key: '{{ trigger.body.order.total }}' }));
    expect(result.ok).toBe(true);
    expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning', code: 'key_not_identity', nodeId: 'invoice' })]);
    expect(result.problems[0]?.message).toContain('two orders can have the same total');
  });
});

describe('weak keys over named samples', () => {
  it('checks the key against every named sample and names the one that lacks the field', () => {
    const named = { ...flow({ customer: { id: 'c1' } }), samples: [{ name: 'refund', input: { refund: { id: 'r1' } } }, { name: 'order 4418', input: { customer: { id: 'c2' } } }] };
    expect(keySamples(named as unknown as Parameters<typeof keySamples>[0]).map((sample) => sample.name)).toEqual(['the sample input', 'refund', 'order 4418']);
    const result = validateFlow(named);
    expect(result.ok).toBe(false);
    expect(result.problems.map((problem) => problem.message)).toEqual([
      expect.stringContaining('This key uses {{ trigger.body.customer.id }}, which the sample "refund" does not have.'),
    ]);
  });
});
