import { describe, expect, it } from 'vitest';
import { validateFlow, type FlowProblem } from './validate.ts';
import { planFlow } from '../flow-plan.ts';
import { exportableFlow } from './loop-test-flows.ts';

function codes(problems: FlowProblem[]): string[] {
  return problems.map((problem) => problem.code);
}

function withChanges(change: (flow: ReturnType<typeof exportableFlow>) => void) {
  const flow = exportableFlow();
  change(flow);
  return flow;
}

describe('For each steps in a flow document', () => {
  /*
   *   start ──► loop (for.each) ──► after
   *              └ welcome ──► follow (body: parentId loop)
   */
  it('accepts a loop whose body is wired among itself, and plans the body apart from the top level', () => {
    const result = validateFlow(exportableFlow());
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    // parentId survives parsing, so import and export keep the body.
    expect(result.flow?.nodes.find((node) => node.id === 'welcome')?.parentId).toBe('loop');
    const plan = planFlow(result.flow!);
    expect(plan.order.map((step) => step.id)).toEqual(['start', 'loop', 'after']);
    expect(plan.bodies.get('loop')?.order.map((step) => step.id)).toEqual(['welcome', 'follow']);
    expect([...(plan.bodies.get('loop')?.roots ?? [])]).toEqual(['welcome']);
  });

  it('refuses a body step whose loop does not exist, or is not a For each', () => {
    const missing = validateFlow(withChanges((flow) => { flow.nodes[2]!.parentId = 'gone'; }));
    expect(codes(missing.problems)).toContain('loop_missing');
    expect(missing.problems.find((problem) => problem.code === 'loop_missing')?.message).toContain('inside a For each step "gone" that does not exist');
    const notLoop = validateFlow(withChanges((flow) => { flow.nodes[2]!.parentId = 'after'; }));
    expect(notLoop.problems.find((problem) => problem.code === 'loop_parent_not_loop')?.message).toContain('only a For each step can hold other steps');
  });

  it('refuses connections across the edge of a body, naming both steps', () => {
    const result = validateFlow(withChanges((flow) => { flow.edges.push({ id: 'e-out', source: 'follow', target: 'after' }); }));
    const problem = result.problems.find((found) => found.code === 'loop_edge_crosses');
    expect(result.ok).toBe(false);
    expect(problem).toMatchObject({ edgeId: 'e-out', nodeId: 'follow' });
    expect(problem?.message).toContain('across the edge of For each step "Each lead" (loop)');
    const into = validateFlow(withChanges((flow) => { flow.edges.push({ id: 'e-in', source: 'loop', target: 'welcome' }); }));
    expect(into.problems.find((found) => found.code === 'loop_edge_crosses')?.message).toContain('start by themselves for every item');
  });

  it('refuses a trigger inside a body, a loop inside a loop, and an empty loop', () => {
    const trigger = validateFlow(withChanges((flow) => { flow.nodes.push({ id: 'inner-start', type: 'trigger.manual', parentId: 'loop', position: { x: 0, y: 0 }, data: {} }); }));
    expect(codes(trigger.problems)).toContain('loop_trigger');
    const nested = validateFlow(withChanges((flow) => {
      flow.nodes.push({ id: 'inner', type: 'for.each', parentId: 'loop', position: { x: 0, y: 0 }, data: { items: '{{ item.lines }}' } });
      flow.nodes.push({ id: 'line', type: 'transform', parentId: 'inner', position: { x: 0, y: 0 }, data: { outputs: { sku: '{{ item.sku }}' } } });
    }));
    expect(nested.problems.find((problem) => problem.code === 'loop_nested')?.message).toContain('Loops inside loops are not supported yet');
    const empty = validateFlow(withChanges((flow) => { flow.nodes = flow.nodes.filter((node) => node.parentId === undefined); flow.edges = flow.edges.filter((edge) => edge.id !== 'b1'); }));
    expect(empty.problems.find((problem) => problem.code === 'loop_empty')?.message).toContain('has no steps inside it');
  });

  it('does not call body steps unreachable, and refuses item and loop outside a body', () => {
    expect(codes(validateFlow(exportableFlow()).problems)).not.toContain('unreachable');
    const outside = validateFlow(withChanges((flow) => { (flow.nodes[4]!.data as { outputs: Record<string, string> }).outputs.sku = '{{ item.sku }}'; }));
    const problem = outside.problems.find((found) => found.code === 'template_loop_value_outside');
    expect(problem).toMatchObject({ nodeId: 'after', severity: 'error' });
    expect(problem?.message).toContain('"item" only exists inside a For each step');
  });

  it('points a step after the loop to the loop\'s list instead of a body step', () => {
    const result = validateFlow(withChanges((flow) => { (flow.nodes[4]!.data as { outputs: Record<string, string> }).outputs.sent = '{{ steps.welcome.output.status }}'; }));
    const problem = result.problems.find((found) => found.code === 'template_step_in_loop');
    expect(problem?.severity).toBe('warning');
    expect(problem?.message).toContain('After the loop, use {{ steps.loop.output }}');
  });

  it('warns when a key inside a body would be shared by two items', () => {
    const shared = validateFlow(withChanges((flow) => { flow.nodes[2]!.data.key = 'welcome-{{ trigger.body.batch }}'; }));
    expect(shared.problems.find((problem) => problem.code === 'key_not_item_specific')?.message).toContain('two items would share one key');
    const byPosition = validateFlow(withChanges((flow) => { flow.nodes[2]!.data.key = 'welcome-{{ trigger.body.batch }}-{{ loop.index }}'; }));
    const problem = byPosition.problems.find((found) => found.code === 'key_uses_loop_index');
    expect(problem).toMatchObject({ severity: 'warning', nodeId: 'welcome', field: 'key' });
    expect(problem?.message).toContain('two items would share one key');
    // A key from the item alone is data, not a constant.
    const itemOnly = validateFlow(withChanges((flow) => { flow.nodes[2]!.data.key = 'welcome-{{ item.email }}'; }));
    expect(codes(itemOnly.problems)).toEqual([]);
  });

  it('checks the loop\'s own settings', () => {
    const result = validateFlow(withChanges((flow) => { Object.assign(flow.nodes[1]!.data, { concurrency: 21, onItemError: 'skip', items: '' }); }));
    const loopProblems = result.problems.filter((problem) => problem.nodeId === 'loop').map((problem) => problem.field);
    expect(loopProblems).toEqual(expect.arrayContaining(['concurrency', 'onItemError', 'items']));
  });
});
