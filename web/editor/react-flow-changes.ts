/**
 * React Flow reports what happens on the canvas as lists of changes, one list per batch.
 * Each list becomes one editor change, so a batch is one store update (one render) and at
 * most one undo step, however many kinds of change it mixes.
 */
import type { EdgeChange, NodeChange, XYPosition } from '@xyflow/react';
import type { CanvasBatch, Size, StepEdge, StepNode } from './editor-changes.ts';
import type { EditorChange } from './editor-state.ts';
import { dispatch } from './useEditorStore.ts';

/** The editor change for one batch of step changes; null when it holds nothing the editor keeps. */
export function changeFromNodeChanges(changes: readonly NodeChange<StepNode>[]): EditorChange | null {
  const positions = new Map<string, XYPosition>();
  const sizes = new Map<string, Size>();
  const selectedNodes = new Map<string, boolean>();
  let dragging = false;
  let ended = false;
  for (const change of changes) {
    if (change.type === 'position') {
      if (change.position) positions.set(change.id, change.position);
      if (change.dragging) dragging = true;
      else ended = true;
    } else if (change.type === 'dimensions' && change.dimensions) {
      // Measured by React Flow; kept so the overview map and fit view agree with the canvas.
      sizes.set(change.id, change.dimensions);
    } else if (change.type === 'select') {
      selectedNodes.set(change.id, change.selected);
    }
    // Removal goes through the editor's own Delete handling, so it is one undo step.
  }
  const moved = positions.size > 0 || ended;
  if (!moved && sizes.size === 0 && selectedNodes.size === 0) return null;
  const batch: CanvasBatch = { positions, sizes, selectedNodes };
  if (moved) batch.drag = dragging && !ended ? 'moving' : 'dropped';
  return { type: 'canvas', batch };
}

/** The editor change for one batch of connection changes (only selection is kept). */
export function changeFromEdgeChanges(changes: readonly EdgeChange<StepEdge>[]): EditorChange | null {
  const selectedEdges = new Map<string, boolean>();
  for (const change of changes) {
    if (change.type === 'select') selectedEdges.set(change.id, change.selected);
  }
  return selectedEdges.size > 0 ? { type: 'canvas', batch: { selectedEdges } } : null;
}

export function onNodesChange(changes: NodeChange<StepNode>[]): void {
  const change = changeFromNodeChanges(changes);
  if (change) dispatch(change);
}

export function onEdgesChange(changes: EdgeChange<StepEdge>[]): void {
  const change = changeFromEdgeChanges(changes);
  if (change) dispatch(change);
}
