import type { Graph, GraphEdge, GraphNode } from './graph.ts';

/**
 * The bodies of For each steps, as pure functions over any graph-shaped value. A body
 * step names its loop in `parentId` and is wired only to the other steps of the body; the
 * loop step is wired to what comes before and after it. Nothing connects a loop to its
 * body, so the steps that start each item's run (the body's roots) are found here.
 *
 *   start → loop → after          loop's body:  welcome → follow-up
 */

export interface NestedNode extends GraphNode {
  parentId?: string | undefined;
}

/** The steps of the top level (no `parentId`) and the edges among them. */
export function topLevel<N extends NestedNode, E extends GraphEdge>(graph: Graph<N, E>): Graph<N, E> {
  return withinParent(graph, undefined);
}

/** The steps of one loop's body and the edges among them. */
export function bodyOf<N extends NestedNode, E extends GraphEdge>(graph: Graph<N, E>, loopId: string): Graph<N, E> {
  return withinParent(graph, loopId);
}

function withinParent<N extends NestedNode, E extends GraphEdge>(graph: Graph<N, E>, parentId: string | undefined): Graph<N, E> {
  const nodes = graph.nodes.filter((node) => node.parentId === parentId);
  const ids = new Set(nodes.map((node) => node.id));
  return { nodes, edges: graph.edges.filter((edge) => ids.has(edge.source) && ids.has(edge.target)) };
}

/** Body steps nothing in their body leads into: each item's run starts at them. */
export function bodyRoots(body: Graph): string[] {
  const targets = new Set(body.edges.map((edge) => edge.target));
  return body.nodes.filter((node) => !targets.has(node.id)).map((node) => node.id);
}

/**
 * The graph with an edge from each loop to its body's roots, so that "reachable from the
 * trigger" and "comes before" see a body as running after its loop starts.
 */
export function withLoopEntries<N extends NestedNode>(graph: Graph<N>): Graph<N> {
  const loops = new Set(graph.nodes.filter((node) => node.parentId !== undefined).map((node) => node.parentId as string));
  const entries: GraphEdge[] = [];
  for (const loopId of loops) {
    for (const root of bodyRoots(bodyOf(graph, loopId))) entries.push({ id: `${loopId}→${root}`, source: loopId, target: root });
  }
  return entries.length === 0 ? graph : { nodes: graph.nodes, edges: [...graph.edges, ...entries] };
}
