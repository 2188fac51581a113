/**
 * The editor's state and every change to it as one typed union, applied by a pure
 * function (the shape of xyflow's `applyNodeChanges`). The store (useEditorStore.ts)
 * only holds the result; tests call `applyChange` directly.
 *
 * History: each change that alters the flow pushes the snapshot before it onto `past`.
 * Two kinds of change are folded into one undo step on purpose:
 * - a drag: positions stream in while the pointer moves; the snapshot from before the
 *   drag is pushed once, when it ends;
 * - typing in one field: consecutive edits of the same field share one undo step.
 *
 * A batch of React Flow changes (sizes, selection, a drag's positions) is one change,
 * applied in one pass: one store update and at most one undo step per batch. A step let
 * go over a For each step's box joins its body (editor-changes.ts, `dropIntoLoops`).
 *
 * Saving: `revision` counts changes to the flow; `savedRevision` is the last one the
 * server confirmed. The flow is dirty while they differ. The count never goes back while
 * the page is open, not even when another flow is opened, so a save confirmed late cannot
 * mark a newer canvas saved, and the save queue can tell which of two drafts is newer.
 */
import type { XYPosition } from '@xyflow/react';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import {
  addStep,
  applyCanvasBatch,
  connect,
  deleteElements,
  dropIntoLoops,
  replaceStep,
  selectOnly,
  updateStepData,
  type CanvasBatch,
  type ConnectionRequest,
  type FlowMeta,
  type MakeRoom,
  type NewStep,
  type Size,
  type Snapshot,
  type StepData,
} from './editor-changes.ts';
import { snapshotFromDocument } from './flow-document.ts';

// Enough to walk back through a long editing session (default: 100 steps).
export const HISTORY_LIMIT = 100;

export interface EditorState extends Snapshot {
  flowId: string | null;
  past: Snapshot[];
  future: Snapshot[];
  revision: number;
  savedRevision: number;
  /** The snapshot from before the drag in progress, pushed to history when it ends. */
  dragStart: Snapshot | null;
  /** The field the last change typed into, so the next keystroke joins its undo step. */
  lastEdit: string | null;
}

export type EditorChange =
  | { type: 'load'; flowId: string; document: FlowDocument }
  | { type: 'close' }
  /** `after`: connected after that step, in between it and its next steps; `room`: steps moved aside first. */
  | { type: 'add'; step: NewStep; after?: Omit<ConnectionRequest, 'target'>; room?: MakeRoom }
  /** Another kind of step in the place of `nodeId`, keeping its connections. */
  | { type: 'replace'; nodeId: string; step: NewStep }
  /** One batch of React Flow changes (react-flow-changes.ts); `move` and `measure` are batches of one kind. */
  | { type: 'canvas'; batch: CanvasBatch }
  | { type: 'move'; positions: ReadonlyMap<string, XYPosition>; dragging: boolean }
  | { type: 'measure'; sizes: ReadonlyMap<string, Size> }
  | { type: 'connect'; connection: ConnectionRequest }
  | { type: 'delete'; nodeIds: readonly string[]; edgeIds: readonly string[] }
  | { type: 'selectOnly'; nodeIds: readonly string[]; edgeIds?: readonly string[] }
  | { type: 'updateData'; nodeId: string; data: StepData; field?: string }
  | { type: 'updateMeta'; meta: Partial<FlowMeta>; field?: string }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'saved'; revision: number };

export function initialEditorState(): EditorState {
  return {
    flowId: null,
    nodes: [],
    edges: [],
    meta: { name: '' },
    past: [],
    future: [],
    revision: 0,
    savedRevision: 0,
    dragStart: null,
    lastEdit: null,
  };
}

export function applyChange(state: EditorState, change: EditorChange): EditorState {
  switch (change.type) {
    case 'load':
      return { ...cleared(state), ...snapshotFromDocument(change.document), flowId: change.flowId };
    case 'close':
      return cleared(state);
    case 'add':
      return record(state, addStep(state, change.step, change.after, change.room));
    case 'replace':
      return record(state, replaceStep(state, change.nodeId, change.step));
    case 'canvas':
      return canvas(state, change.batch);
    case 'move':
      return canvas(state, { positions: change.positions, drag: change.dragging ? 'moving' : 'dropped' });
    case 'measure':
      return canvas(state, { sizes: change.sizes });
    case 'connect':
      return record(state, connect(state, change.connection));
    case 'delete':
      return record(state, deleteElements(state, change.nodeIds, change.edgeIds));
    case 'selectOnly':
      return withSnapshot(state, selectOnly(state, change.nodeIds, change.edgeIds));
    case 'updateData':
      return record(state, updateStepData(state, change.nodeId, change.data), change.field && `data:${change.nodeId}:${change.field}`);
    case 'updateMeta':
      return record(state, { ...snapshotOf(state), meta: { ...state.meta, ...change.meta } }, change.field && `meta:${change.field}`);
    case 'undo':
      return travel(state, 'back');
    case 'redo':
      return travel(state, 'forward');
    case 'saved':
      return change.revision > state.savedRevision ? { ...state, savedRevision: change.revision } : state;
  }
}

export function isDirty(state: Pick<EditorState, 'revision' | 'savedRevision'>): boolean {
  return state.revision !== state.savedRevision;
}

/** An empty canvas with no history, still counting revisions from where it was. */
function cleared(state: EditorState): EditorState {
  return { ...initialEditorState(), revision: state.revision, savedRevision: state.revision };
}

function snapshotOf(state: EditorState): Snapshot {
  return { nodes: state.nodes, edges: state.edges, meta: state.meta };
}

/** Replaces the canvas without touching history or the revision (selection, sizes). */
function withSnapshot(state: EditorState, next: Snapshot): EditorState {
  if (next.nodes === state.nodes && next.edges === state.edges && next.meta === state.meta) return state;
  return { ...state, nodes: next.nodes, edges: next.edges, meta: next.meta };
}

/** A change to the flow: remembered for undo, and counted as unsaved. */
function record(state: EditorState, next: Snapshot, editKey?: string | false | null): EditorState {
  if (next.nodes === state.nodes && next.edges === state.edges && next.meta === state.meta) return state;
  const key = editKey || null;
  const joinsLast = key !== null && key === state.lastEdit && state.past.length > 0;
  return {
    ...state,
    nodes: next.nodes,
    edges: next.edges,
    meta: next.meta,
    past: joinsLast ? state.past : pushLimited(state.past, snapshotOf(state)),
    future: [],
    revision: state.revision + 1,
    lastEdit: key,
  };
}

/**
 * A batch from the canvas. Sizes and selection are not changes to the flow; positions are
 * once a drag is dropped, which records the snapshot from before the drag as one undo step.
 */
function canvas(state: EditorState, batch: CanvasBatch): EditorState {
  const moved = applyCanvasBatch(state, batch);
  // A step let go over a loop joins the loop's body.
  const next = batch.drag === 'dropped' && batch.positions?.size ? dropIntoLoops(moved, batch.positions.keys()) : moved;
  if (batch.drag === 'moving') {
    // Positions stream in while the pointer moves; history waits for the drop.
    return { ...withSnapshot(state, next), dragStart: state.dragStart ?? snapshotOf(state) };
  }
  if (batch.drag !== 'dropped') return withSnapshot(state, next);
  const before = state.dragStart ?? snapshotOf(state);
  const settled = { ...withSnapshot(state, next), dragStart: null };
  if (!positionsDiffer(before, next)) return settled;
  return {
    ...settled,
    past: pushLimited(state.past, before),
    future: [],
    revision: state.revision + 1,
    lastEdit: null,
  };
}

function positionsDiffer(a: Snapshot, b: Snapshot): boolean {
  if (a.nodes === b.nodes) return false;
  const before = new Map(a.nodes.map((node) => [node.id, node.position]));
  return b.nodes.some((node) => {
    const old = before.get(node.id);
    return !old || old.x !== node.position.x || old.y !== node.position.y;
  });
}

function travel(state: EditorState, direction: 'back' | 'forward'): EditorState {
  const from = direction === 'back' ? state.past : state.future;
  const target = from[from.length - 1];
  if (!target) return state;
  const rest = from.slice(0, -1);
  const current = snapshotOf(state);
  return {
    ...state,
    nodes: target.nodes,
    edges: target.edges,
    meta: target.meta,
    past: direction === 'back' ? rest : pushLimited(state.past, current),
    future: direction === 'back' ? [...state.future, current] : rest,
    revision: state.revision + 1,
    dragStart: null,
    lastEdit: null,
  };
}

function pushLimited(stack: Snapshot[], snapshot: Snapshot): Snapshot[] {
  const next = [...stack, snapshot];
  return next.length > HISTORY_LIMIT ? next.slice(next.length - HISTORY_LIMIT) : next;
}
