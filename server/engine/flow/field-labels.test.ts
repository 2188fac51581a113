/**
 * Every problem with a step's settings names the field the way the inspector shows it
 * ("Compare with"), never by the document's key ("right").
 */
import { describe, expect, it } from 'vitest';
import { fieldLabel } from './field-labels.ts';
import { validateFlow } from './validate.ts';

const node = (id: string, type: string, data: Record<string, unknown>) => ({ id, type, position: { x: 0, y: 0 }, data });

/*
 *   start ──► each broken step (one connection each, so every step is reachable)
 */
const broken = [
  node('cond_empty', 'condition', { left: '', op: 'gt' }),
  node('cond_tpl', 'condition', { left: '{{ nope.total }}', op: 'equals', right: '{{ steps.ghost.output }}' }),
  node('wait_none', 'delay', {}),
  node('wait_bad', 'delay', { for: '3 fortnights' }),
  node('wait_both', 'delay', { for: '1h', until: '2030-01-01' }),
  node('call', 'http.request', { sideEffect: false, keyTtl: 'forever', retry: { max: 99 }, onUncertain: 'maybe', request: { method: 'FETCH', url: '{{ oops', headers: { 'x-api-key': '{{ nothing.here }}' } } }),
  node('mail', 'email.send', { sideEffect: false }),
  node('post', 'message.post', { sideEffect: false }),
  node('totals', 'transform', { outputs: { net: '{{ steps.ghost.output }}' } }),
  node('move', 'state.transition', { entity: 'order:{{ trigger.body.id }}', states: ['new', 'paid'], to: 'shipped', requires: 'packed', requiresTimeout: 'soon' }),
];
const flow = {
  format: 'onceflow/v1',
  name: 'Broken everywhere',
  sampleInput: { id: '1' },
  nodes: [node('start', 'trigger.manual', {}), node('hook', 'trigger.webhook', {}), node('tick', 'trigger.schedule', {}), ...broken],
  edges: broken.map((step) => ({ id: `to_${step.id}`, source: 'start', target: step.id })),
};

describe('problems name fields as the editor shows them', () => {
  const problems = validateFlow(flow).problems.filter((problem) => problem.nodeId !== undefined && problem.field !== undefined);

  it('finds a problem in each broken step', () => {
    expect(new Set(problems.map((problem) => problem.nodeId))).toEqual(new Set([...broken.map((step) => step.id), 'hook', 'tick']));
  });

  it('never names a field by its key in the file', () => {
    for (const problem of problems) {
      const key = problem.field as string;
      const last = key.split('.').pop() ?? key;
      // The label may itself mention the key ("Schedule (cron)"); only the rest of the sentence is checked.
      const message = problem.message.replaceAll(fieldLabel(flow.nodes.find((step) => step.id === problem.nodeId)!.type, key), '');
      for (const raw of [key, last]) {
        expect(message, problem.message).not.toContain(`"${raw}"`);
        expect(message, problem.message).not.toContain(`(${raw})`);
      }
    }
  });

  it('says which field of a condition is wrong in the words of its form', () => {
    const messages = problems.filter((problem) => problem.nodeId?.startsWith('cond')).map((problem) => problem.message);
    expect(messages).toContain('Step "cond_empty" needs a field or value to check ("Check this field").');
    expect(messages).toContain('Step "cond_empty" needs a value to compare with ("Compare with").');
    expect(messages.join('\n')).toMatch(/uses \{\{ nope\.total \}\} in "Check this field"/);
    expect(messages.join('\n')).toMatch(/uses \{\{ steps\.ghost\.output \}\} in "Compare with"/);
  });

  it('names parts of a field by the field that holds them', () => {
    expect(fieldLabel('http.request', 'request.headers.x-api-key')).toBe('the header "x-api-key"');
    expect(fieldLabel('transform', 'outputs.net')).toBe('the output "net"');
    expect(fieldLabel('state.transition', 'states[1]')).toBe('"States, in order"');
    expect(fieldLabel('email.send', 'to[0]')).toBe('"To"');
    expect(fieldLabel('http.request', 'retry.max')).toBe('"Retries when the service is busy or unreachable"');
  });
});
