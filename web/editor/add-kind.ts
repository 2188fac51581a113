/**
 * Adding a step from the palette: dropped where the pointer let go, or clicked in after
 * the selected step — connected to it and, when it already led somewhere, put in between
 * (A → B becomes A → new → B, with B and what follows moved right to make room).
 *
 * A trigger chosen while the flow's only trigger is still the untouched one it started
 * with (a new flow's Manual trigger) takes that trigger's place instead of adding a
 * second one: a flow starts one way, and the newcomer is choosing which.
 */
import type { XYPosition } from '@xyflow/react';
import type { ConnectionRequest, MakeRoom, Snapshot, StepNode } from './editor-changes.ts';
import type { EditorChange } from './editor-state.ts';
import { stableStringify } from './flow-document.ts';
import { isTriggerKind, kindInfo, type NewStepContext } from './node-kinds.ts';
import { dispatch, selectSelectedNode, useEditorStore } from './useEditorStore.ts';

// Roughly one step box, so a new step lands next to its neighbour, not on top of it.
export const STEP_WIDTH = 240;
export const STEP_HEIGHT = 72;
const GAP_X = 80;
const GAP_Y = 40;

export interface Placement {
  /** Where the pointer let go (flow coordinates): the step is centred there, unconnected. */
  at?: XYPosition;
  /** With nothing selected, where to put a clicked step. */
  fallback?: XYPosition;
}

export function addStepChange(state: Snapshot, kind: string, place: Placement, context: NewStepContext = {}): EditorChange | null {
  const info = kindInfo(kind);
  if (!info) return null;
  const step = { type: info.kind, id: info.idBase, data: info.defaults(context) };
  const at = place.at && { x: place.at.x - STEP_WIDTH / 2, y: place.at.y - STEP_HEIGHT / 2 };

  const replaced = isTriggerKind(info.kind) ? replaceableTrigger(state) : null;
  if (replaced) {
    // The same kind again: it is already there, untouched; just show it.
    if (replaced.type === info.kind) return { type: 'selectOnly', nodeIds: [replaced.id] };
    return { type: 'replace', nodeId: replaced.id, step: { ...step, position: at ?? replaced.position } };
  }
  if (at) return { type: 'add', step: { ...step, position: at } };

  const selected = selectSelectedNode(state);
  if (!selected) {
    const base = place.fallback ?? nextFreeSpot(state.nodes);
    return { type: 'add', step: { ...step, position: freeSpot(state.nodes, base) } };
  }
  const after = exitFor(state, selected);
  const right = { x: selected.position.x + (selected.measured?.width ?? STEP_WIDTH) + GAP_X, y: selected.position.y };
  const room = isTriggerKind(info.kind) ? undefined : roomAfter(state, after, right);
  const others = room ? state.nodes.filter((node) => !room.nodeIds.includes(node.id)) : state.nodes;
  return { type: 'add', step: { ...step, position: freeSpot(others, right) }, after, ...(room ? { room } : {}) };
}

export function addKind(kind: string, place: Placement = {}, context: NewStepContext = {}): void {
  const change = addStepChange(useEditorStore.getState(), kind, place, context);
  if (change) dispatch(change);
}

/** The flow's only trigger, when nobody has changed it since it was made; else null. */
export function replaceableTrigger(state: Pick<Snapshot, 'nodes'>): StepNode | null {
  const triggers = state.nodes.filter((node) => isTriggerKind(node.type));
  const only = triggers.length === 1 ? triggers[0] : undefined;
  const defaults = only && kindInfo(only.type)?.defaults();
  return only && defaults && stableStringify(only.data) === stableStringify(defaults) ? only : null;
}

/** A condition's first free exit, "true" before "false". */
function exitFor(state: Snapshot, node: StepNode): Omit<ConnectionRequest, 'target'> {
  if (node.type !== 'condition') return { source: node.id };
  const used = new Set(state.edges.filter((edge) => edge.source === node.id).map((edge) => edge.sourceHandle));
  return { source: node.id, sourceHandle: used.has('true') && !used.has('false') ? 'false' : 'true' };
}

/**
 * When the new step goes in between and its spot is taken, everything after it on that
 * exit moves right by one step; nothing moves when the spot is free.
 */
function roomAfter(state: Snapshot, after: Omit<ConnectionRequest, 'target'>, spot: XYPosition): MakeRoom | undefined {
  const exit = after.sourceHandle ?? null;
  const next = state.edges.filter((edge) => edge.source === after.source && (edge.sourceHandle ?? null) === exit).map((edge) => edge.target);
  if (next.length === 0) return undefined;
  const downstream = new Set<string>();
  const queue = [...next];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (downstream.has(id) || id === after.source) continue;
    downstream.add(id);
    for (const edge of state.edges) if (edge.source === id) queue.push(edge.target);
  }
  const blocked = state.nodes.some((node) => downstream.has(node.id) && overlaps(node.position, spot));
  return blocked ? { nodeIds: [...downstream], dx: STEP_WIDTH + GAP_X } : undefined;
}

function overlaps(a: XYPosition, b: XYPosition): boolean {
  return Math.abs(a.x - b.x) < STEP_WIDTH * 0.8 && Math.abs(a.y - b.y) < STEP_HEIGHT + GAP_Y / 2;
}

/** Below the given spot until nothing overlaps it. */
function freeSpot(nodes: readonly StepNode[], from: XYPosition): XYPosition {
  const spot = { ...from };
  for (let tries = 0; tries < 50 && nodes.some((node) => overlaps(node.position, spot)); tries++) spot.y += STEP_HEIGHT + GAP_Y;
  return spot;
}

function nextFreeSpot(nodes: readonly StepNode[]): XYPosition {
  if (nodes.length === 0) return { x: 0, y: 0 };
  const rightmost = nodes.reduce((best, node) => (node.position.x > best.position.x ? node : best));
  return { x: rightmost.position.x + STEP_WIDTH + GAP_X, y: rightmost.position.y };
}
