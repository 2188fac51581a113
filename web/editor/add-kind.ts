/**
 * Adding a step from the palette: dropped where the pointer let go, or clicked in after
 * the selected step — connected to it and, when it already led somewhere, put in between
 * (A → B becomes A → new → B, with B and what follows moved right to make room).
 *
 * Inside a For each: dropped on the loop, or clicked while the loop or a step inside it
 * is selected, the step joins the loop's body (`parentId`, position relative to the loop).
 *
 * A trigger chosen while the flow's only trigger is still the untouched one it started
 * with (a new flow's Manual trigger) takes that trigger's place instead of adding a
 * second one: a flow starts one way, and the newcomer is choosing which.
 */
import type { XYPosition } from '@xyflow/react';
import type { ConnectionRequest, MakeRoom, NewStep, Size, Snapshot, StepNode } from './editor-changes.ts';
import type { EditorChange } from './editor-state.ts';
import { stableStringify } from './flow-document.ts';
import { BODY_INSET, bodySteps, canGoInside, isLoop, LOOP_MIN_SIZE, loopAt, loopSizes } from './loop-layout.ts';
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
  const inside = canGoInside(info.kind);

  const replaced = isTriggerKind(info.kind) ? replaceableTrigger(state) : null;
  if (replaced) {
    // The same kind again: it is already there, untouched; just show it.
    if (replaced.type === info.kind) return { type: 'selectOnly', nodeIds: [replaced.id] };
    return { type: 'replace', nodeId: replaced.id, step: { ...step, position: at ?? replaced.position } };
  }
  if (place.at && at) {
    // Dropped on a loop: into its body, placed relative to the loop.
    const loop = inside ? loopAt(state.nodes, place.at) : null;
    if (loop) return { type: 'add', step: { ...step, parentId: loop.id, position: { x: at.x - loop.position.x, y: at.y - loop.position.y } } };
    return { type: 'add', step: { ...step, position: at } };
  }

  let selected = selectSelectedNode(state);
  if (selected?.parentId !== undefined && !inside) {
    // A trigger or a loop cannot go inside a loop: it goes after the loop instead.
    selected = state.nodes.find((node) => node.id === selected?.parentId) ?? null;
  }
  if (!selected) {
    const base = place.fallback ?? nextFreeSpot(state.nodes);
    return { type: 'add', step: { ...step, position: freeSpot(state.nodes, base) } };
  }
  if (isLoop(selected) && inside) return addInside(state, selected, step);
  return addAfter(state, selected, { ...step, ...(selected.parentId === undefined ? {} : { parentId: selected.parentId }) });
}

/** After `selected` among its neighbours (the top level, or the same loop's body), in between it and its next step. */
function addAfter(state: Snapshot, selected: StepNode, step: Omit<NewStep, 'position'>): EditorChange {
  const neighbours = state.nodes.filter((node) => node.parentId === step.parentId);
  const after = exitFor(state, selected);
  const width = selected.measured?.width ?? (isLoop(selected) ? (loopSizes(state.nodes).get(selected.id)?.width ?? STEP_WIDTH) : STEP_WIDTH);
  const right = { x: selected.position.x + width + GAP_X, y: selected.position.y };
  const room = isTriggerKind(step.type) ? undefined : roomAfter(state, neighbours, after, right, step.type);
  const others = room ? neighbours.filter((node) => !room.nodeIds.includes(node.id)) : neighbours;
  return { type: 'add', step: { ...step, position: freeSpot(others, right, loopSizes(state.nodes)) }, after, ...(room ? { room } : {}) };
}

/**
 * Into a loop's body: after its last step (the one leading nowhere, rightmost), or as
 * the body's first step when it has none.
 */
function addInside(state: Snapshot, loop: StepNode, step: Omit<NewStep, 'position'>): EditorChange {
  const body = bodySteps(state.nodes, loop.id);
  const leadsOn = new Set(state.edges.map((edge) => edge.source));
  const ends = body.filter((node) => !leadsOn.has(node.id));
  const last = (ends.length > 0 ? ends : body).reduce<StepNode | null>((best, node) => (!best || node.position.x > best.position.x || (node.position.x === best.position.x && node.position.y > best.position.y) ? node : best), null);
  if (!last) return { type: 'add', step: { ...step, parentId: loop.id, position: { ...BODY_INSET } } };
  return addAfter(state, last, { ...step, parentId: loop.id });
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
function roomAfter(state: Snapshot, neighbours: readonly StepNode[], after: Omit<ConnectionRequest, 'target'>, spot: XYPosition, kind: string): MakeRoom | undefined {
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
  const blocked = neighbours.some((node) => downstream.has(node.id) && overlaps(node.position, spot));
  // A new loop is wider than a step: what follows moves right by its width.
  const width = isLoop({ type: kind }) ? LOOP_MIN_SIZE.width : STEP_WIDTH;
  return blocked ? { nodeIds: [...downstream], dx: width + GAP_X } : undefined;
}

function overlaps(a: XYPosition, b: XYPosition): boolean {
  return Math.abs(a.x - b.x) < STEP_WIDTH * 0.8 && Math.abs(a.y - b.y) < STEP_HEIGHT + GAP_Y / 2;
}

/** Below the given spot until nothing overlaps it (a loop counts with its whole body). */
function freeSpot(nodes: readonly StepNode[], from: XYPosition, loops: ReadonlyMap<string, Size> = loopSizes(nodes)): XYPosition {
  const spot = { ...from };
  const taken = (node: StepNode) => {
    const loop = loops.get(node.id);
    if (!loop) return overlaps(node.position, spot);
    return spot.x < node.position.x + loop.width && spot.x + STEP_WIDTH > node.position.x && spot.y < node.position.y + loop.height && spot.y + STEP_HEIGHT > node.position.y;
  };
  for (let tries = 0; tries < 50 && nodes.some(taken); tries++) spot.y += STEP_HEIGHT + GAP_Y;
  return spot;
}

function nextFreeSpot(nodes: readonly StepNode[]): XYPosition {
  if (nodes.length === 0) return { x: 0, y: 0 };
  const rightmost = nodes.reduce((best, node) => (node.position.x > best.position.x ? node : best));
  return { x: rightmost.position.x + STEP_WIDTH + GAP_X, y: rightmost.position.y };
}
