import { describe, expect, it } from 'vitest';
import { validateFlow, type FlowProblem } from './validate.ts';

function find(problems: FlowProblem[], code: string, nodeId?: string): FlowProblem {
  const found = problems.find((problem) => problem.code === code && (nodeId === undefined || problem.nodeId === nodeId));
  if (!found) throw new Error(`no ${code} problem${nodeId ? ` for ${nodeId}` : ''} in ${JSON.stringify(problems, null, 1)}`);
  return found;
}

describe('validateFlow on a broken flow', () => {
  /*
   *   hook (webhook, constant event id) ──► invoice (no URL, key changes each attempt)
   *        │                                   │  └──e-ghost──► ghost (missing)
   *        │                                   ▼
   *        ├──► mail (no key, bad subject)    hook2 (a second trigger, with an incoming edge)
   *        ├──► check (condition) ──no handle──► notify (key uses run id)
   *        ├──► weird (unknown kind)            dup, dup (same id twice)
   *        └──► calc (refers to missing step and unknown value)
   *   loop1 ◄──► loop2 (a cycle, not reachable)       orphan (not reachable)
   */
  const broken = {
    format: 'onceflow/v1',
    name: 'Broken',
    sampleInput: { id: 'evt_1', order: { id: '4417' } },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', data: { label: 'Shop webhook', eventId: 'always-the-same' } },
      { id: 'hook2', type: 'trigger.manual', data: {} },
      {
        id: 'invoice',
        type: 'http.request',
        data: { label: 'Create invoice', key: 'inv-{{ trigger.body.order.id }}-{{ run.attempt }}', request: { method: 'POST' } },
      },
      {
        id: 'mail',
        type: 'email.send',
        data: {
          smtp: { host: 'smtp.test', port: 587 },
          from: 'shop@x.test',
          to: 'a@x.test',
          subject: 'Order {{ trigger.body.order.id',
        },
      },
      { id: 'check', type: 'condition', data: { left: '{{ trigger.body.order.id }}', op: 'exists' } },
      { id: 'notify', type: 'message.post', data: { url: 'https://hooks.test', text: 'hi', key: '{{ trigger.body.id }}-{{ run.id }}' } },
      { id: 'weird', type: 'foo.bar', data: {} },
      { id: 'calc', type: 'transform', data: { label: 'Calculate', outputs: { a: '{{ steps.ghost.output }}', b: '{{ env.HOME }}' } } },
      { id: 'dup', type: 'delay', data: { for: '1h' } },
      { id: 'dup', type: 'delay', data: { for: '2h' } },
      { id: 'loop1', type: 'transform', data: { outputs: { x: '1' } } },
      { id: 'loop2', type: 'transform', data: { outputs: { x: '2' } } },
      { id: 'orphan', type: 'delay', data: { for: '10m' } },
    ],
    edges: [
      { id: 'e1', source: 'hook', target: 'invoice' },
      { id: 'e2', source: 'hook', target: 'mail' },
      { id: 'e3', source: 'hook', target: 'check' },
      { id: 'e4', source: 'check', target: 'notify' },
      { id: 'e5', source: 'hook', target: 'weird' },
      { id: 'e6', source: 'hook', target: 'calc' },
      { id: 'e7', source: 'invoice', target: 'hook2' },
      { id: 'e-ghost', source: 'invoice', target: 'ghost' },
      { id: 'e8', source: 'loop1', target: 'loop2' },
      { id: 'e8', source: 'loop2', target: 'loop1' },
      { id: 'e9', source: 'hook', target: 'dup' },
    ],
  };
  const result = validateFlow(broken);
  const { problems } = result;

  it('is not ok and reports every kind of problem at once', () => {
    expect(result.ok).toBe(false);
    expect(result.flow).toBeUndefined();
    expect(new Set(problems.map((problem) => problem.code))).toEqual(
      new Set([
        'duplicate_node_id',
        'duplicate_edge_id',
        'unknown_node_type',
        'edge_missing_target',
        'condition_edge_handle',
        'multiple_triggers',
        'trigger_has_incoming',
        'cycle',
        'unreachable',
        'missing_field',
        'template_syntax',
        'template_unknown_step',
        'template_unknown_value',
        'key_missing',
        'key_changes_every_attempt',
        'key_uses_run_id',
        'event_id_constant',
      ]),
    );
  });

  it('names the step by its label and points at the field', () => {
    expect(find(problems, 'missing_field', 'invoice')).toEqual({
      severity: 'error',
      code: 'missing_field',
      nodeId: 'invoice',
      field: 'request.url',
      message: 'Step "Create invoice" (invoice) needs a URL.',
    });
  });

  it('reports the template syntax error with its field and position', () => {
    const problem = find(problems, 'template_syntax', 'mail');
    expect(problem.field).toBe('subject');
    expect(problem.message).toContain('Step "mail"');
    expect(problem.message).toContain('character 7');
  });

  it('asks the side-effect step without a key for one', () => {
    const problem = find(problems, 'key_missing', 'mail');
    expect(problem.field).toBe('key');
    expect(problem.message).toContain('This step changes something outside Onceflow, so it needs an idempotency key');
  });

  it('lints the keys of side-effect steps with their node ids', () => {
    expect(find(problems, 'key_changes_every_attempt')).toMatchObject({ nodeId: 'invoice', field: 'key', severity: 'error' });
    expect(find(problems, 'key_uses_run_id')).toMatchObject({ nodeId: 'notify', field: 'key', severity: 'warning' });
    expect(find(problems, 'key_changes_every_attempt').message).toMatch(/^Step "Create invoice" \(invoice\): This key changes/);
  });

  it('reports the unknown kind with the known ones', () => {
    const problem = find(problems, 'unknown_node_type', 'weird');
    expect(problem.message).toMatch(/^Step "weird" has an unknown kind "foo\.bar"\. Known kinds are: trigger\.manual, /);
  });

  it('reports connection problems with their edge ids', () => {
    expect(find(problems, 'edge_missing_target')).toMatchObject({ edgeId: 'e-ghost', field: 'target' });
    expect(find(problems, 'edge_missing_target').message).toContain('"ghost" that does not exist');
    expect(find(problems, 'duplicate_edge_id')).toMatchObject({ edgeId: 'e8' });
    expect(find(problems, 'condition_edge_handle')).toMatchObject({ nodeId: 'check', edgeId: 'e4' });
    expect(find(problems, 'condition_edge_handle').message).toContain('the Yes or the No path');
  });

  it('reports trigger problems', () => {
    expect(find(problems, 'multiple_triggers')).toMatchObject({ nodeId: 'hook2' });
    expect(find(problems, 'multiple_triggers').message).toContain('step "Shop webhook" (hook)');
    expect(find(problems, 'trigger_has_incoming')).toMatchObject({ nodeId: 'hook2', edgeId: 'e7' });
    expect(find(problems, 'event_id_constant')).toMatchObject({ nodeId: 'hook', field: 'eventId' });
  });

  it('names the steps of the cycle and warns about steps that never run', () => {
    expect(find(problems, 'cycle').message).toContain('"loop1" → "loop2" → "loop1"');
    const unreachable = problems.filter((problem) => problem.code === 'unreachable');
    expect(unreachable.every((problem) => problem.severity === 'warning')).toBe(true);
    expect(unreachable.map((problem) => problem.nodeId).sort()).toEqual(['loop1', 'loop2', 'orphan']);
  });

  it('reports a repeated id once and checks the first step of that id only', () => {
    expect(problems.filter((problem) => problem.code === 'duplicate_node_id')).toEqual([
      expect.objectContaining({ nodeId: 'dup', message: 'Two steps have the id "dup". Each step needs an id of its own.' }),
    ]);
  });

  it('reports values that templates can never find', () => {
    expect(find(problems, 'template_unknown_step')).toMatchObject({ nodeId: 'calc', field: 'outputs.a' });
    expect(find(problems, 'template_unknown_value')).toMatchObject({ nodeId: 'calc', field: 'outputs.b' });
    expect(find(problems, 'template_unknown_value').message).toContain('Step "Calculate" (calc) uses {{ env.HOME }}');
  });

  it('does not complain about what is right', () => {
    expect(problems.some((problem) => problem.nodeId === 'notify' && problem.severity === 'error')).toBe(false);
    expect(problems.some((problem) => problem.nodeId === 'orphan' && problem.severity === 'error')).toBe(false);
  });
});
