/**
 * What a screen reader says for a connection: the labels of the steps it joins
 * ("Connection from Shop webhook to Create invoice"), never their internal ids, which is
 * what React Flow would say by default.
 */
import { useMemo, useRef } from 'react';
import type { StepEdge, StepNode } from './editor-changes.ts';
import { kindLabel } from './node-kinds.ts';

export function stepName(node: Pick<StepNode, 'type' | 'data'> | undefined): string {
  if (!node) return 'a missing step';
  const label = node.data.label;
  return typeof label === 'string' && label.trim() !== '' ? label.trim() : kindLabel(node.type);
}

export function edgeName(edge: Pick<StepEdge, 'source' | 'target' | 'sourceHandle'>, steps: ReadonlyMap<string, StepNode>): string {
  const exit = edge.sourceHandle === 'true' ? ' (Yes)' : edge.sourceHandle === 'false' ? ' (No)' : '';
  return `Connection from ${stepName(steps.get(edge.source))}${exit} to ${stepName(steps.get(edge.target))}`;
}

// Named copies, kept while the name holds, so React Flow re-renders only renamed connections.
const named = new WeakMap<StepEdge, StepEdge>();

/** The edges with their accessible names; the same array as last time when no name changed (a drag renames nothing). */
export function nameEdges(steps: readonly StepNode[], edges: readonly StepEdge[], previous?: readonly StepEdge[]): StepEdge[] {
  const byId = new Map(steps.map((node) => [node.id, node]));
  let same = previous !== undefined && previous.length === edges.length;
  const next = edges.map((edge, index) => {
    const ariaLabel = edgeName(edge, byId);
    let copy = named.get(edge);
    if (!copy || copy.ariaLabel !== ariaLabel) {
      copy = { ...edge, ariaLabel };
      named.set(edge, copy);
    }
    if (same && previous?.[index] !== copy) same = false;
    return copy;
  });
  return same && previous ? (previous as StepEdge[]) : next;
}

export function useNamedEdges(steps: readonly StepNode[], edges: readonly StepEdge[]): StepEdge[] {
  const last = useRef<StepEdge[] | undefined>(undefined);
  return useMemo(() => (last.current = nameEdges(steps, edges, last.current)), [steps, edges]);
}
