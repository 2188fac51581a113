/**
 * What the canvas can do to a flow, as pure functions over one snapshot (nodes, edges and
 * the flow's own fields). Each returns a new snapshot and keeps unchanged nodes and edges
 * by reference, so React Flow re-renders only what changed — which is what keeps a
 * 300-step flow smooth while dragging.
 */
import type { Edge, Node, XYPosition } from '@xyflow/react';
import type { FlowDocument } from '../../server/engine/flow/document.ts';

export type StepData = Record<string, unknown>;

/** A step on the canvas; `type` is the step kind, e.g. `http.request`. */
export type StepNode = Node<StepData>;
export type StepEdge = Edge;

export interface FlowMeta {
  name: string;
  description?: string;
  sampleInput?: FlowDocument['sampleInput'];
  samples?: FlowDocument['samples'];
  settings?: FlowDocument['settings'];
}

export interface Snapshot {
  nodes: StepNode[];
  edges: StepEdge[];
  meta: FlowMeta;
}

export interface NewStep {
  type: string;
  position: XYPosition;
  data: StepData;
  /** Preferred id; made unique against the flow's other steps. */
  id?: string;
}

export interface ConnectionRequest {
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}

// Step ids appear in templates ({{ steps.<id>.output }}), so they are short and readable.
const ID_SAFE = /[^A-Za-z0-9_-]+/g;

export function uniqueId(base: string, taken: ReadonlySet<string>): string {
  const clean = base.replace(/\./g, '-').replace(ID_SAFE, '-').replace(/^-+|-+$/g, '') || 'step';
  if (!taken.has(clean)) return clean;
  for (let n = 2; ; n++) {
    const candidate = `${clean}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function edgeIdFor(connection: ConnectionRequest, taken: ReadonlySet<string>): string {
  const handle = connection.sourceHandle ? `-${connection.sourceHandle}` : '';
  return uniqueId(`e-${connection.source}${handle}-${connection.target}`, taken);
}

/** Steps moved aside to make room for a new one: all by the same distance. */
export interface MakeRoom {
  nodeIds: readonly string[];
  dx: number;
  dy?: number;
}

/**
 * Adds a step (selected, everything else deselected), optionally after `after`. Added
 * after a step that already leads on (on that exit), the new step goes in between:
 * A → B becomes A → new → B, never a parallel branch beside B.
 */
export function addStep(snapshot: Snapshot, step: NewStep, after?: Omit<ConnectionRequest, 'target'>, room?: MakeRoom): Snapshot {
  const taken = new Set(snapshot.nodes.map((node) => node.id));
  const id = uniqueId(step.id ?? step.type, taken);
  const node: StepNode = { id, type: step.type, position: step.position, data: step.data, selected: true };
  const nodes = [...deselectAll(room ? moveAside(snapshot.nodes, room) : snapshot.nodes), node];
  const added = { ...snapshot, nodes, edges: deselectAll(snapshot.edges) };
  if (!after || !taken.has(after.source)) return added;
  const linked = connect(added, { ...after, target: id });
  // Refused (a trigger cannot be led into): the step stands alone and nothing is rerouted.
  if (linked === added) return added;
  const exit = after.sourceHandle ?? null;
  const onward = added.edges.filter((edge) => edge.source === after.source && (edge.sourceHandle ?? null) === exit);
  if (onward.length === 0) return linked;
  const gone = new Set(onward.map((edge) => edge.id));
  let inserted: Snapshot = { ...linked, edges: linked.edges.filter((edge) => !gone.has(edge.id)) };
  // A condition put in between passes what came through on its "Yes" exit.
  const newExit = step.type === 'condition' ? 'true' : null;
  for (const edge of onward) {
    inserted = connect(inserted, { source: id, target: edge.target, sourceHandle: newExit, targetHandle: edge.targetHandle ?? null });
  }
  return inserted;
}

function moveAside(nodes: StepNode[], { nodeIds, dx, dy = 0 }: MakeRoom): StepNode[] {
  const moving = new Set(nodeIds);
  return nodes.map((node) => (moving.has(node.id) ? { ...node, position: { x: node.position.x + dx, y: node.position.y + dy } } : node));
}

/**
 * Puts a step of another kind in the place of one (a new flow's Manual trigger becoming a
 * Webhook trigger): same place, the connections it had now start or end at the new step.
 */
export function replaceStep(snapshot: Snapshot, nodeId: string, step: NewStep): Snapshot {
  const old = snapshot.nodes.find((node) => node.id === nodeId);
  if (!old) return snapshot;
  const taken = new Set(snapshot.nodes.filter((node) => node.id !== nodeId).map((node) => node.id));
  const id = uniqueId(step.id ?? step.type, taken);
  const node: StepNode = { id, type: step.type, position: step.position, data: step.data, selected: true };
  const nodes = deselectAll(snapshot.nodes).map((existing) => (existing.id === nodeId ? node : existing));
  const edges = deselectAll(snapshot.edges).map((edge) =>
    edge.source === nodeId || edge.target === nodeId
      ? { ...edge, source: edge.source === nodeId ? id : edge.source, target: edge.target === nodeId ? id : edge.target }
      : edge,
  );
  return { ...snapshot, nodes, edges };
}

/** Why a connection is refused, in words for the person drawing it; null when allowed. */
export function connectionProblem(snapshot: Snapshot, connection: ConnectionRequest): string | null {
  const source = snapshot.nodes.find((node) => node.id === connection.source);
  const target = snapshot.nodes.find((node) => node.id === connection.target);
  if (!source || !target) return 'Both ends of a connection must be steps.';
  if (source.id === target.id) return 'A step cannot lead to itself.';
  if (target.type?.startsWith('trigger.')) return 'A trigger starts the flow, so nothing can lead into it.';
  if (source.type === 'condition' && connection.sourceHandle !== 'true' && connection.sourceHandle !== 'false') {
    return 'Connect a condition from its Yes or No exit.';
  }
  const handle = connection.sourceHandle ?? null;
  const duplicate = snapshot.edges.some(
    (edge) => edge.source === source.id && edge.target === target.id && (edge.sourceHandle ?? null) === handle,
  );
  return duplicate ? 'These steps are already connected.' : null;
}

export function connect(snapshot: Snapshot, connection: ConnectionRequest): Snapshot {
  if (connectionProblem(snapshot, connection) !== null) return snapshot;
  const id = edgeIdFor(connection, new Set(snapshot.edges.map((edge) => edge.id)));
  const edge: StepEdge = {
    id,
    source: connection.source,
    target: connection.target,
    ...(connection.sourceHandle ? { sourceHandle: connection.sourceHandle } : {}),
    ...exitLabel(connection.sourceHandle),
  };
  return { ...snapshot, edges: [...snapshot.edges, edge] };
}

/** The words on a connection leaving a condition (canvas only; never saved). */
export function exitLabel(handle: string | null | undefined): { label?: string } {
  if (handle === 'true') return { label: 'Yes' };
  if (handle === 'false') return { label: 'No' };
  return {};
}

/** Removes steps with every connection that touches them, and the given connections. */
export function deleteElements(snapshot: Snapshot, nodeIds: readonly string[], edgeIds: readonly string[]): Snapshot {
  const goneNodes = new Set(nodeIds);
  const goneEdges = new Set(edgeIds);
  const nodes = snapshot.nodes.filter((node) => !goneNodes.has(node.id));
  const edges = snapshot.edges.filter(
    (edge) => !goneEdges.has(edge.id) && !goneNodes.has(edge.source) && !goneNodes.has(edge.target),
  );
  if (nodes.length === snapshot.nodes.length && edges.length === snapshot.edges.length) return snapshot;
  return { ...snapshot, nodes, edges };
}

export function updateStepData(snapshot: Snapshot, nodeId: string, data: StepData): Snapshot {
  let changed = false;
  const nodes = snapshot.nodes.map((node) => {
    if (node.id !== nodeId || node.data === data) return node;
    changed = true;
    return { ...node, data };
  });
  return changed ? { ...snapshot, nodes } : snapshot;
}

/** Selects exactly these elements. */
export function selectOnly(snapshot: Snapshot, nodeIds: readonly string[], edgeIds: readonly string[] = []): Snapshot {
  const nodes = new Set(nodeIds);
  const edges = new Set(edgeIds);
  return {
    ...snapshot,
    nodes: applySelected(snapshot.nodes, (id) => nodes.has(id)),
    edges: applySelected(snapshot.edges, (id) => edges.has(id)),
  };
}

/**
 * One batch of what React Flow reports about the canvas — sizes it measured, selection,
 * positions — gathered by element id.
 */
export interface CanvasBatch {
  positions?: ReadonlyMap<string, XYPosition>;
  sizes?: ReadonlyMap<string, Size>;
  selectedNodes?: ReadonlyMap<string, boolean>;
  selectedEdges?: ReadonlyMap<string, boolean>;
  /** `moving` while a drag is under way, `dropped` when it (or a move without one) ends. */
  drag?: 'moving' | 'dropped';
}

export interface Size {
  width: number;
  height: number;
}

/**
 * Applies a whole batch in one pass over the steps and one over the connections, like
 * xyflow's `applyNodeChanges`. Untouched elements keep their reference, and a batch that
 * changes nothing returns the same snapshot.
 */
export function applyCanvasBatch(snapshot: Snapshot, batch: CanvasBatch): Snapshot {
  const nodes = batch.positions?.size || batch.sizes?.size || batch.selectedNodes?.size ? applyToSteps(snapshot.nodes, batch) : snapshot.nodes;
  const selectedEdges = batch.selectedEdges;
  const edges = selectedEdges?.size ? applySelected(snapshot.edges, (id) => selectedEdges.get(id)) : snapshot.edges;
  return nodes === snapshot.nodes && edges === snapshot.edges ? snapshot : { ...snapshot, nodes, edges };
}

function applyToSteps(nodes: StepNode[], { positions, sizes, selectedNodes }: CanvasBatch): StepNode[] {
  let changed = false;
  const next = nodes.map((node) => {
    const position = positions?.get(node.id);
    const size = sizes?.get(node.id);
    const selected = selectedNodes?.get(node.id);
    const moves = position !== undefined && (position.x !== node.position.x || position.y !== node.position.y);
    const resizes = size !== undefined && (node.measured?.width !== size.width || node.measured.height !== size.height);
    const selects = selected !== undefined && Boolean(node.selected) !== selected;
    if (!moves && !resizes && !selects) return node;
    changed = true;
    return {
      ...node,
      ...(moves ? { position } : {}),
      ...(resizes ? { measured: size } : {}),
      ...(selects ? { selected } : {}),
    };
  });
  return changed ? next : nodes;
}

function applySelected<T extends { id: string; selected?: boolean }>(items: T[], wanted: (id: string) => boolean | undefined): T[] {
  let changed = false;
  const next = items.map((item) => {
    const selected = wanted(item.id);
    if (selected === undefined || Boolean(item.selected) === selected) return item;
    changed = true;
    return { ...item, selected };
  });
  return changed ? next : items;
}

function deselectAll<T extends { selected?: boolean }>(items: T[]): T[] {
  return items.some((item) => item.selected) ? items.map((item) => (item.selected ? { ...item, selected: false } : item)) : items;
}
