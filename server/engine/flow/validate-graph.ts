import type { FlowDocument } from './document.ts';
import { findCycle, findTriggers, incomingEdges, reachableFrom } from './graph.ts';
import { withLoopEntries } from './loop-body.ts';
import { NODE_TYPES, isNodeType } from './node-types.ts';
import { quotedStepLabel, type FlowProblem } from './problems.ts';
import { isConditionHandle } from '../../../core/step-kinds.ts';

/**
 * Checks of how steps are connected: ids, kinds, connections, the trigger, cycles and
 * reachability. Works on a best-effort reading of the document, so these problems are
 * reported even when parts of it are malformed.
 */

export interface LooseNode {
  id: string;
  type: string;
  data: Record<string, unknown>;
  /** The For each step whose body holds this step. */
  parentId?: string | undefined;
}

export interface LooseEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null | undefined;
}

export interface LooseFlow {
  name: string;
  sampleInput?: FlowDocument['sampleInput'];
  samples?: FlowDocument['samples'];
  settings?: FlowDocument['settings'];
  nodes: LooseNode[];
  edges: LooseEdge[];
}

export function checkGraph(flow: LooseFlow): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const byId = new Map<string, LooseNode>();
  for (const node of flow.nodes) {
    if (byId.has(node.id)) {
      problems.push({
        severity: 'error',
        code: 'duplicate_node_id',
        nodeId: node.id,
        message: `Two steps have the id "${node.id}". Each step needs an id of its own.`,
      });
    } else {
      byId.set(node.id, node);
    }
  }
  const label = (id: string): string => quotedStepLabel(byId.get(id) ?? { id });
  const name = (id: string): string => `Step ${label(id)}`;
  const ref = (id: string): string => `step ${label(id)}`;

  // A missing type is already reported as a shape problem.
  for (const node of byId.values()) {
    if (node.type === '' || isNodeType(node.type)) continue;
    problems.push({
      severity: 'error',
      code: 'unknown_node_type',
      nodeId: node.id,
      field: 'type',
      message: `${name(node.id)} has an unknown kind "${node.type}". Known kinds are: ${NODE_TYPES.join(', ')}.`,
    });
  }

  const edgeIds = new Set<string>();
  for (const edge of flow.edges) {
    if (edgeIds.has(edge.id)) {
      problems.push({
        severity: 'error',
        code: 'duplicate_edge_id',
        edgeId: edge.id,
        message: `Two connections have the id "${edge.id}". Each connection needs an id of its own.`,
      });
    }
    edgeIds.add(edge.id);
    for (const end of ['source', 'target'] as const) {
      if (byId.has(edge[end])) continue;
      problems.push({
        severity: 'error',
        code: end === 'source' ? 'edge_missing_source' : 'edge_missing_target',
        edgeId: edge.id,
        field: end,
        message:
          end === 'source'
            ? `The connection "${edge.id}" starts from a step "${edge.source}" that does not exist. Remove the connection or reconnect it.`
            : `The connection "${edge.id}" leads to a step "${edge.target}" that does not exist. Remove the connection or reconnect it.`,
      });
    }
    const from = byId.get(edge.source);
    if (from?.type === 'condition' && !isConditionHandle(edge.sourceHandle)) {
      problems.push({
        severity: 'error',
        code: 'condition_edge_handle',
        nodeId: from.id,
        edgeId: edge.id,
        field: 'sourceHandle',
        message: `The connection "${edge.id}" leaves ${ref(from.id)} without saying whether it is the Yes or the No path. Connect it from the Yes exit or the No exit.`,
      });
    }
  }

  const graph = { nodes: [...byId.values()], edges: flow.edges };
  const triggers = findTriggers(graph);
  if (triggers.length === 0 && byId.size > 0) {
    problems.push({
      severity: 'error',
      code: 'no_trigger',
      message: 'The flow has no starting step. Add a trigger (manual, webhook or schedule) that starts it.',
    });
  }
  const [first, ...extra] = triggers;
  for (const trigger of extra) {
    problems.push({
      severity: 'error',
      code: 'multiple_triggers',
      nodeId: trigger.id,
      message: `${name(trigger.id)} is a second starting step; a flow has exactly one trigger (the first is ${ref(first?.id ?? '')}). Remove one of them or make it a separate flow.`,
    });
  }
  for (const trigger of triggers) {
    for (const edge of incomingEdges(graph, trigger.id)) {
      if (!byId.has(edge.source)) continue;
      problems.push({
        severity: 'error',
        code: 'trigger_has_incoming',
        nodeId: trigger.id,
        edgeId: edge.id,
        message: `${name(trigger.id)} starts the flow, so nothing can lead into it, but the connection "${edge.id}" comes from ${ref(edge.source)}.`,
      });
    }
  }

  const cycle = findCycle(graph);
  if (cycle) {
    const loop = [...cycle, cycle[0] as string].map(label).join(' → ');
    problems.push({
      severity: 'error',
      code: 'cycle',
      nodeId: cycle[0],
      message: `The flow goes in a circle: ${loop}. Remove one of these connections so that the flow always moves forward.`,
    });
  }

  if (triggers.length > 0) {
    // A body runs when its loop does, though nothing is wired from the loop into it.
    const reached = reachableFrom(withLoopEntries(graph), triggers.map((trigger) => trigger.id));
    for (const node of byId.values()) {
      if (reached.has(node.id)) continue;
      problems.push({
        severity: 'warning',
        code: 'unreachable',
        nodeId: node.id,
        message: `${name(node.id)} is not connected to the trigger, so it will never run.`,
      });
    }
  }
  return problems;
}
