import { describe, expect, it } from 'vitest';
import { UserError } from '../errors.ts';
import { findCycle, findTriggers, incomingEdges, outgoingEdges, reachableFrom, topologicalOrder, type Graph } from './graph.ts';

/** Builds a graph from "a>b" pairs (optionally "a>b:handle"); every node is a transform unless named t*. */
function graph(nodeIds: string[], edges: string[]): Graph {
  return {
    nodes: nodeIds.map((id) => ({ id, type: id.startsWith('t') ? 'trigger.manual' : 'transform' })),
    edges: edges.map((spec, index) => {
      const [pair = '', handle] = spec.split(':');
      const [source = '', target = ''] = pair.split('>');
      return { id: `e${index + 1}`, source, target, ...(handle ? { sourceHandle: handle } : {}) };
    }),
  };
}

describe('findTriggers', () => {
  it('finds trigger nodes in document order', () => {
    //   t1 ──► a      t2
    const g = graph(['a', 't1', 't2'], ['t1>a']);
    expect(findTriggers(g).map((node) => node.id)).toEqual(['t1', 't2']);
    expect(findTriggers(graph(['a'], []))).toEqual([]);
  });
});

describe('outgoingEdges and incomingEdges', () => {
  //        ┌─true──► yes
  //   c ───┤
  //        └─false─► no ◄── other
  const g = graph(['c', 'yes', 'no', 'other'], ['c>yes:true', 'c>no:false', 'other>no']);

  it('lists edges leaving a node, optionally through one handle', () => {
    expect(outgoingEdges(g, 'c').map((edge) => edge.id)).toEqual(['e1', 'e2']);
    expect(outgoingEdges(g, 'c', 'true').map((edge) => edge.target)).toEqual(['yes']);
    expect(outgoingEdges(g, 'c', 'false').map((edge) => edge.target)).toEqual(['no']);
    expect(outgoingEdges(g, 'yes')).toEqual([]);
  });

  it('lists edges arriving at a node', () => {
    expect(incomingEdges(g, 'no').map((edge) => edge.source)).toEqual(['c', 'other']);
    expect(incomingEdges(g, 'c')).toEqual([]);
  });
});

describe('reachableFrom', () => {
  it('follows edges from the start and ignores loose ends', () => {
    //   t ──► a ──► b        c ──► d        a ──► ghost (no such node)
    const g = graph(['t', 'a', 'b', 'c', 'd'], ['t>a', 'a>b', 'c>d', 'a>ghost']);
    expect([...reachableFrom(g, ['t'])].sort()).toEqual(['a', 'b', 't']);
    expect([...reachableFrom(g, ['c'])].sort()).toEqual(['c', 'd']);
    expect(reachableFrom(g, ['ghost']).size).toBe(0);
  });
});

describe('findCycle', () => {
  it('returns null for a graph without cycles', () => {
    //   t ──► a ──► c
    //   └───► b ──┘
    expect(findCycle(graph(['t', 'a', 'b', 'c'], ['t>a', 't>b', 'a>c', 'b>c']))).toBeNull();
  });

  it('returns the nodes of a cycle in the order the edges run', () => {
    //   t ──► a ──► b ──► c
    //         ▲           │
    //         └───────────┘
    expect(findCycle(graph(['t', 'a', 'b', 'c'], ['t>a', 'a>b', 'b>c', 'c>a']))).toEqual(['a', 'b', 'c']);
  });

  it('finds a step that leads to itself', () => {
    //   t ──► a ─┐
    //         ▲──┘
    expect(findCycle(graph(['t', 'a'], ['t>a', 'a>a']))).toEqual(['a']);
  });

  it('finds a cycle that is not reachable from the first node', () => {
    //   t ──► a        b ◄──► c
    expect(findCycle(graph(['t', 'a', 'b', 'c'], ['t>a', 'b>c', 'c>b']))).toEqual(['b', 'c']);
  });

  it('does not mistake a diamond joined late for a cycle', () => {
    //   a ──► b ──► d ──► e
    //   └───► c ────▲
    //   (c is visited after d is finished)
    expect(findCycle(graph(['a', 'b', 'c', 'd', 'e'], ['a>b', 'b>d', 'd>e', 'a>c', 'c>d']))).toBeNull();
  });

  it('copes with a long chain without running out of stack', () => {
    //   n0 ──► n1 ──► … ──► n19999 ──► n0
    const ids = Array.from({ length: 20_000 }, (_, i) => `n${i}`);
    const edges = ids.map((id, i) => `${id}>${ids[(i + 1) % ids.length] ?? ''}`);
    expect(findCycle(graph(ids, edges))).toHaveLength(20_000);
  });
});

describe('topologicalOrder', () => {
  it('puts every node after the ones it depends on', () => {
    //   t ──► a ──► c
    //   └───► b ──┘
    expect(topologicalOrder(graph(['t', 'a', 'b', 'c'], ['t>a', 't>b', 'a>c', 'b>c']))).toEqual(['t', 'a', 'b', 'c']);
  });

  it('breaks ties by the order of the document, not of the edges', () => {
    //   t ──► x          (document order: t, y, x, z)
    //   ├───► y          (edge order: x, z, y)
    //   └───► z
    expect(topologicalOrder(graph(['t', 'y', 'x', 'z'], ['t>x', 't>z', 't>y']))).toEqual(['t', 'y', 'x', 'z']);
  });

  it('keeps document order among nodes freed at different times', () => {
    //   t ──► a ──► b ──► d
    //   └───────────────► c      (document order: t, d, c, a, b)
    // c is ready as soon as t is done; d only after b.
    expect(topologicalOrder(graph(['t', 'd', 'c', 'a', 'b'], ['t>a', 'a>b', 'b>d', 't>c']))).toEqual([
      't',
      'c',
      'a',
      'b',
      'd',
    ]);
  });

  it('includes unconnected nodes and ignores edges to missing nodes', () => {
    //   t ──► a ──► ghost        lonely
    expect(topologicalOrder(graph(['lonely', 't', 'a'], ['t>a', 'a>ghost']))).toEqual(['lonely', 't', 'a']);
  });

  it('counts parallel edges once', () => {
    //   t ══► a   (two edges, e.g. both branches of a condition)
    expect(topologicalOrder(graph(['t', 'a'], ['t>a:true', 't>a:false']))).toEqual(['t', 'a']);
  });

  it('refuses a flow with a cycle, naming the steps', () => {
    //   t ──► a ◄──► b
    const g = graph(['t', 'a', 'b'], ['t>a', 'a>b', 'b>a']);
    expect(() => topologicalOrder(g)).toThrow(UserError);
    expect(() => topologicalOrder(g)).toThrow('a → b → a');
  });
});
