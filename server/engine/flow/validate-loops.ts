import { FOR_EACH, isTriggerType } from '../../../core/step-kinds.ts';
import { quotedStepLabel, type FlowProblem } from './problems.ts';
import type { LooseFlow, LooseNode } from './validate-graph.ts';

/**
 * Checks of For each steps and their bodies: a body step names an existing For each,
 * nothing is wired across a body's edge, no trigger sits in a body, a body is not empty,
 * and loops do not nest (not supported yet).
 */
export function checkLoops(flow: LooseFlow): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const byId = new Map<string, LooseNode>();
  for (const node of flow.nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  const label = (id: string) => quotedStepLabel(byId.get(id) ?? { id });

  for (const node of byId.values()) {
    const parentId = node.parentId;
    if (node.type === FOR_EACH.type && ![...byId.values()].some((child) => child.parentId === node.id)) {
      problems.push({
        severity: 'error', code: 'loop_empty', nodeId: node.id,
        message: `Step ${label(node.id)} has no steps inside it. Put the steps to run for every item inside the For each step.`,
      });
    }
    if (parentId === undefined) continue;
    const parent = byId.get(parentId);
    if (!parent) {
      problems.push({
        severity: 'error', code: 'loop_missing', nodeId: node.id,
        message: `Step ${label(node.id)} is inside a For each step "${parentId}" that does not exist. Move it out of the group, or add the For each step back.`,
      });
    } else if (parent.type !== FOR_EACH.type) {
      problems.push({
        severity: 'error', code: 'loop_parent_not_loop', nodeId: node.id,
        message: `Step ${label(node.id)} is placed inside step ${label(parent.id)}, but only a For each step can hold other steps. Move it out.`,
      });
    } else if (node.type === FOR_EACH.type) {
      problems.push({
        severity: 'error', code: 'loop_nested', nodeId: node.id,
        message: `Step ${label(node.id)} is a For each inside another For each (${label(parent.id)}). Loops inside loops are not supported yet: move it out, or make the inner list a separate flow.`,
      });
    }
    if (isTriggerType(node.type)) {
      problems.push({
        severity: 'error', code: 'loop_trigger', nodeId: node.id,
        message: `Step ${label(node.id)} starts the flow, so it cannot be inside a For each step. Move it out of the group.`,
      });
    }
  }

  for (const edge of flow.edges) {
    const source = byId.get(edge.source);
    const target = byId.get(edge.target);
    // Connections to missing steps are reported by the graph checks.
    if (!source || !target || source.parentId === target.parentId) continue;
    const inside = target.parentId !== undefined ? target : source;
    const loopId = inside.parentId as string;
    const fromLoopToBody = source.id === loopId;
    problems.push({
      severity: 'error', code: 'loop_edge_crosses', edgeId: edge.id, nodeId: inside.id,
      message: fromLoopToBody
        ? `The connection "${edge.id}" leads from For each step ${label(loopId)} into its own step ${label(target.id)}. The steps inside start by themselves for every item; remove this connection.`
        : `The connection "${edge.id}" links step ${label(source.id)} and step ${label(target.id)} across the edge of For each step ${label(loopId)}. Steps inside a For each connect only to each other; connect the For each step itself to what comes before and after it.`,
    });
  }
  return problems;
}
