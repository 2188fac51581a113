/**
 * How a large flow opens quickly. The canvas draws only the steps in view, but React Flow
 * must draw a step once to learn its size and where its handles are — unless it is told.
 * Steps not yet drawn are therefore given their expected size and handle places (exact
 * once drawn: the measured size replaces the estimate). A flow too big to read when fitted
 * to the screen opens at its start at full size instead, with the overview map showing all
 * of it and "Fit view" a click away.
 */
import { Position, type NodeHandle, type Viewport } from '@xyflow/react';
import type { Size, StepNode } from './editor-changes.ts';
import { LOOP_HEADER, loopSizes } from './loop-layout.ts';

/** From editor.css: `.step-node` is 240 px wide and at least 84 px high. */
export const STEP_WIDTH = 240;
export const STEP_MIN_HEIGHT = 84;
/** `.step-handle` is 11 px square, centred on the edge of the node's box inside its 1 px border. */
const HANDLE_SIZE = 11;
const NODE_BORDER = 1;
/** Below this zoom step labels cannot be read, so fitting the whole flow helps nobody. */
export const READABLE_ZOOM = 0.5;
/** How "fit view" frames a flow, here and on the canvas. */
export const FIT_VIEW_OPTIONS = { padding: 0.2, maxZoom: 1.1 } as const;
/** Where the first step sits when a big flow opens at its start. */
const START_INSET = 80;

function estimatedHandles(node: StepNode): NodeHandle[] {
  const half = HANDLE_SIZE / 2;
  const at = (type: 'source' | 'target', fraction: number, id?: string): NodeHandle => ({
    id: id ?? null,
    type,
    position: type === 'target' ? Position.Left : Position.Right,
    x: (type === 'target' ? NODE_BORDER : STEP_WIDTH - NODE_BORDER) - half,
    y: NODE_BORDER + (STEP_MIN_HEIGHT - 2 * NODE_BORDER) * fraction - half,
    width: HANDLE_SIZE,
    height: HANDLE_SIZE,
  });
  // Same places as StepNodeView: condition exits at 32% and 72% of the height.
  const sources = node.type === 'condition' ? [at('source', 0.32, 'true'), at('source', 0.72, 'false')] : [at('source', 0.5)];
  return node.type?.startsWith('trigger.') ? sources : [at('target', 0.5), ...sources];
}

const drawable = new WeakMap<StepNode, StepNode>();

/** The node React Flow is given: as it is once measured, with expected geometry before. */
export function drawableNode(node: StepNode): StepNode {
  if (node.measured?.width && node.measured.height) return node;
  let estimated = drawable.get(node);
  if (!estimated) {
    // `measured` too: fit view and the overview map only count steps with a size.
    estimated = { ...node, measured: { width: STEP_WIDTH, height: STEP_MIN_HEIGHT }, handles: estimatedHandles(node) };
    drawable.set(node, estimated);
  }
  return estimated;
}

const drawnLoops = new WeakMap<StepNode, StepNode>();

/**
 * Every step as React Flow is given it: a For each step sized to hold the steps inside
 * it (it grows as they move right or down), the others as `drawableNode` gives them.
 */
export function drawableNodes(nodes: readonly StepNode[]): StepNode[] {
  const sizes = loopSizes(nodes);
  if (sizes.size === 0) return nodes.map(drawableNode);
  return nodes.map((node) => {
    const size = sizes.get(node.id);
    if (!size) return drawableNode(node);
    // The same object while the loop's size stays, so React Flow does not redraw it.
    const known = drawnLoops.get(node);
    if (known && known.width === size.width && known.height === size.height) return known;
    const half = HANDLE_SIZE / 2;
    const handle = (type: 'source' | 'target'): NodeHandle => ({
      id: null,
      type,
      position: type === 'target' ? Position.Left : Position.Right,
      x: (type === 'target' ? 0 : size.width) - half,
      y: LOOP_HEADER / 2 - half,
      width: HANDLE_SIZE,
      height: HANDLE_SIZE,
    });
    const drawn: StepNode = { ...node, width: size.width, height: size.height, measured: size, handles: [handle('target'), handle('source')] };
    drawnLoops.set(node, drawn);
    return drawn;
  });
}

/**
 * The view a flow opens with: `null` to fit the whole flow (it is readable that way), or a
 * view at full size with the flow's first step near the left edge: half-way down, or near
 * the top when nothing of the flow lies above it.
 */
export function openingViewport(steps: readonly StepNode[], canvas: Size): Viewport | null {
  if (steps.length === 0 || canvas.width <= 0 || canvas.height <= 0) return null;
  // Loops at their full size; the steps inside them are within their boxes, so they add nothing.
  const nodes = drawableNodes(steps).filter((node) => node.parentId === undefined);
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const node of nodes) {
    const width = node.measured?.width ?? STEP_WIDTH;
    const height = node.measured?.height ?? STEP_MIN_HEIGHT;
    minX = Math.min(minX, node.position.x);
    minY = Math.min(minY, node.position.y);
    maxX = Math.max(maxX, node.position.x + width);
    maxY = Math.max(maxY, node.position.y + height);
  }
  const usable = 1 - FIT_VIEW_OPTIONS.padding;
  const fitZoom = Math.min(FIT_VIEW_OPTIONS.maxZoom, (canvas.width * usable) / (maxX - minX), (canvas.height * usable) / (maxY - minY));
  if (fitZoom >= READABLE_ZOOM) return null;

  const first = nodes.find((node) => node.type?.startsWith('trigger.')) ?? leftmost(nodes);
  const height = first.measured?.height ?? STEP_MIN_HEIGHT;
  return { zoom: 1, x: START_INSET - first.position.x, y: Math.min(canvas.height / 2 - (first.position.y + height / 2), START_INSET - minY) };
}

function leftmost(nodes: readonly StepNode[]): StepNode {
  return nodes.reduce((best, node) => (node.position.x < best.position.x || (node.position.x === best.position.x && node.position.y < best.position.y) ? node : best));
}

/**
 * Flows up to this many steps are drawn whole, so every step is in the page and Tab
 * reaches each one; bigger flows draw only what is in view, which keeps them quick to open.
 */
export const ALWAYS_DRAWN_STEPS = 100;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The smallest pan that brings a box (flow coordinates) fully into view, `margin` pixels
 * inside the canvas; null when it is in view already. Nothing else moves further than it
 * must, so the steps a person was looking at stay where they were. A box too big for the
 * canvas at this zoom (a For each is 600 wide, its "Add a step inside" at its right end) is
 * shown whole by zooming out around the canvas's middle, but not past a readable size.
 */
export function panToReveal(view: Viewport, canvas: Size, box: Box, margin = 24): Viewport | null {
  const fitting = Math.min((canvas.width - 2 * margin) / box.width, (canvas.height - 2 * margin) / box.height);
  const zoom = Math.min(view.zoom, Math.max(READABLE_ZOOM, fitting));
  const scale = zoom / view.zoom;
  const x = canvas.width / 2 - (canvas.width / 2 - view.x) * scale;
  const y = canvas.height / 2 - (canvas.height / 2 - view.y) * scale;
  const shift = (start: number, length: number, offset: number, available: number) => {
    const from = start * zoom + offset;
    const to = from + length * zoom;
    // Too big to fit even so (half a pixel allowed for a box zoomed to fit exactly): its start is what counts.
    if (to - from > available - 2 * margin + 0.5) return margin - from;
    if (from < margin) return margin - from;
    if (to > available - margin) return available - margin - to;
    return 0;
  };
  const dx = shift(box.x, box.width, x, canvas.width);
  const dy = shift(box.y, box.height, y, canvas.height);
  if (dx === 0 && dy === 0 && zoom === view.zoom) return null;
  return { x: x + dx, y: y + dy, zoom };
}

/**
 * What a step just added should bring into view, in flow coordinates: the step as drawn (a
 * new For each at its full size), and for a step inside a loop the loop's header above it to
 * the loop's right end too, where "Add a step inside" is, so the next one can be added from
 * there. Null when there is no such step.
 */
export function addedStepBox(nodes: readonly StepNode[], id: string): Box | null {
  const drawn = drawableNodes(nodes);
  const added = drawn.find((node) => node.id === id);
  if (!added) return null;
  const width = added.measured?.width ?? STEP_WIDTH;
  const height = added.measured?.height ?? STEP_MIN_HEIGHT;
  const parent = added.parentId === undefined ? undefined : drawn.find((node) => node.id === added.parentId);
  if (!parent) return { ...added.position, width, height };
  // A step inside a loop is placed relative to the loop.
  const x = parent.position.x + added.position.x;
  const bottom = parent.position.y + added.position.y + height;
  const right = Math.max(x + width, parent.position.x + (parent.measured?.width ?? 0));
  return { x, y: parent.position.y, width: right - x, height: bottom - parent.position.y };
}
