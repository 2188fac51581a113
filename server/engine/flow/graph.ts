import { UserError } from '../errors.ts';
import { isTriggerType } from './node-types.ts';

/**
 * Pure functions over the nodes and edges of a flow. They accept any graph-shaped value,
 * not only a validated document, because validation itself uses them on documents that
 * still have problems: edges pointing at missing nodes are ignored, and when two nodes
 * share an id the first one counts.
 */

export interface GraphNode {
  id: string;
  type: string;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null | undefined;
}

export interface Graph<N extends GraphNode = GraphNode, E extends GraphEdge = GraphEdge> {
  nodes: readonly N[];
  edges: readonly E[];
}

export function findTriggers<N extends GraphNode>(graph: Graph<N>): N[] {
  return graph.nodes.filter((node) => isTriggerType(node.type));
}

/** With `handle`, only the edges leaving through it (e.g. a condition's `true`). */
export function outgoingEdges<E extends GraphEdge>(
  graph: Graph<GraphNode, E>,
  nodeId: string,
  handle?: string,
): E[] {
  return graph.edges.filter(
    (edge) => edge.source === nodeId && (handle === undefined || edge.sourceHandle === handle),
  );
}

export function incomingEdges<E extends GraphEdge>(graph: Graph<GraphNode, E>, nodeId: string): E[] {
  return graph.edges.filter((edge) => edge.target === nodeId);
}

/** Node ids reachable from `start` by following edges, `start` included. */
export function reachableFrom(graph: Graph, start: readonly string[]): Set<string> {
  const next = successors(graph);
  const seen = new Set<string>();
  const stack = start.filter((id) => next.has(id));
  for (const id of stack) seen.add(id);
  while (stack.length > 0) {
    const id = stack.pop() as string;
    for (const target of next.get(id) ?? []) {
      if (!seen.has(target)) {
        seen.add(target);
        stack.push(target);
      }
    }
  }
  return seen;
}

/**
 * The node ids of one cycle in the order the edges run (the last leads back to the
 * first), or null. Searches from nodes in document order, so the answer is stable.
 */
export function findCycle(graph: Graph): string[] | null {
  const next = successors(graph);
  const state = new Map<string, 'open' | 'done'>();
  for (const root of next.keys()) {
    if (state.has(root)) continue;
    // Iterative depth-first search, so a long chain of steps cannot overflow the stack.
    const path: string[] = [root];
    const cursors: number[] = [0];
    state.set(root, 'open');
    while (path.length > 0) {
      const id = path[path.length - 1] as string;
      const targets = next.get(id) ?? [];
      const cursor = cursors[cursors.length - 1] as number;
      if (cursor >= targets.length) {
        state.set(id, 'done');
        path.pop();
        cursors.pop();
        continue;
      }
      cursors[cursors.length - 1] = cursor + 1;
      const target = targets[cursor] as string;
      const seen = state.get(target);
      if (seen === 'open') return path.slice(path.indexOf(target));
      if (seen === undefined) {
        state.set(target, 'open');
        path.push(target);
        cursors.push(0);
      }
    }
  }
  return null;
}

/**
 * Every node after all of its predecessors. Among nodes that are ready at the same
 * time, the one listed first in the document goes first, so the order never depends
 * on how edges happen to be stored. Throws a UserError when the flow has a cycle.
 */
export function topologicalOrder(graph: Graph): string[] {
  const next = successors(graph);
  const position = new Map<string, number>();
  for (const id of next.keys()) position.set(id, position.size);
  const waitingFor = new Map<string, number>();
  for (const id of next.keys()) waitingFor.set(id, 0);
  for (const targets of next.values()) {
    for (const target of targets) waitingFor.set(target, (waitingFor.get(target) ?? 0) + 1);
  }

  // Sorted by document position; graphs are small, so insertion into an array is enough.
  const ready = [...next.keys()].filter((id) => waitingFor.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift() as string;
    order.push(id);
    for (const target of next.get(id) ?? []) {
      const left = (waitingFor.get(target) ?? 0) - 1;
      waitingFor.set(target, left);
      if (left === 0) insertByPosition(ready, target, position);
    }
  }
  if (order.length < next.size) {
    const cycle = findCycle(graph) ?? [];
    throw new UserError(`The flow goes in a circle (${[...cycle, cycle[0]].join(' → ')}), so it has no order to run in.`);
  }
  return order;
}

function insertByPosition(ready: string[], id: string, position: ReadonlyMap<string, number>): void {
  const rank = position.get(id) ?? 0;
  let at = ready.length;
  while (at > 0 && (position.get(ready[at - 1] as string) ?? 0) > rank) at--;
  ready.splice(at, 0, id);
}

/**
 * Adjacency in document order: node ids (first occurrence wins) to the ids their edges
 * lead to, skipping edges whose ends are not nodes. Parallel edges count once.
 */
function successors(graph: Graph): Map<string, string[]> {
  const next = new Map<string, string[]>();
  for (const node of graph.nodes) {
    if (!next.has(node.id)) next.set(node.id, []);
  }
  for (const edge of graph.edges) {
    const targets = next.get(edge.source);
    if (targets && next.has(edge.target) && !targets.includes(edge.target)) targets.push(edge.target);
  }
  return next;
}
