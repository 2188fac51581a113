/**
 * Adding a step from the palette: dropped where the pointer let go, or clicked in after
 * the selected step (connected to it, placed to its right where there is room).
 */
import type { XYPosition } from '@xyflow/react';
import type { ConnectionRequest, Snapshot, StepNode } from './editor-changes.ts';
import type { EditorChange } from './editor-state.ts';
import { kindInfo } from './node-kinds.ts';
import { dispatch, selectSelectedNode, useEditorStore } from './useEditorStore.ts';

// Roughly one step box, so a new step lands next to its neighbour, not on top of it.
export const STEP_WIDTH = 240;
export const STEP_HEIGHT = 72;
const GAP_X = 80;
const GAP_Y = 40;

export function addStepChange(
  state: Snapshot,
  kind: string,
  place: { at?: XYPosition; fallback?: XYPosition },
): EditorChange | null {
  const info = kindInfo(kind);
  if (!info) return null;
  const step = { type: info.kind, id: info.idBase, data: info.defaults() };
  if (place.at) {
    const at = { x: place.at.x - STEP_WIDTH / 2, y: place.at.y - STEP_HEIGHT / 2 };
    return { type: 'add', step: { ...step, position: at } };
  }
  const selected = selectSelectedNode(state);
  if (!selected) {
    const base = place.fallback ?? nextFreeSpot(state.nodes);
    return { type: 'add', step: { ...step, position: freeSpot(state.nodes, base) } };
  }
  const right = { x: selected.position.x + (selected.measured?.width ?? STEP_WIDTH) + GAP_X, y: selected.position.y };
  return { type: 'add', step: { ...step, position: freeSpot(state.nodes, right) }, after: exitFor(state, selected) };
}

export function addKind(kind: string, place: { at?: XYPosition; fallback?: XYPosition } = {}): void {
  const change = addStepChange(useEditorStore.getState(), kind, place);
  if (change) dispatch(change);
}

/** A condition's first free exit, "true" before "false". */
function exitFor(state: Snapshot, node: StepNode): Omit<ConnectionRequest, 'target'> {
  if (node.type !== 'condition') return { source: node.id };
  const used = new Set(state.edges.filter((edge) => edge.source === node.id).map((edge) => edge.sourceHandle));
  return { source: node.id, sourceHandle: used.has('true') && !used.has('false') ? 'false' : 'true' };
}

/** Below the given spot until nothing overlaps it. */
function freeSpot(nodes: readonly StepNode[], from: XYPosition): XYPosition {
  const spot = { ...from };
  const overlaps = () =>
    nodes.some(
      (node) => Math.abs(node.position.x - spot.x) < STEP_WIDTH * 0.8 && Math.abs(node.position.y - spot.y) < STEP_HEIGHT + GAP_Y / 2,
    );
  for (let tries = 0; tries < 50 && overlaps(); tries++) spot.y += STEP_HEIGHT + GAP_Y;
  return spot;
}

function nextFreeSpot(nodes: readonly StepNode[]): XYPosition {
  if (nodes.length === 0) return { x: 0, y: 0 };
  const rightmost = nodes.reduce((best, node) => (node.position.x > best.position.x ? node : best));
  return { x: rightmost.position.x + STEP_WIDTH + GAP_X, y: rightmost.position.y };
}
