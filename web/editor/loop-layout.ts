/**
 * How a For each step holds its body on the canvas. The loop is a React Flow parent node:
 * its body steps carry `parentId` and positions relative to the loop's top-left corner.
 * The loop has a header (its own name, exits and "Add a step inside") and below it the
 * body, which grows to hold its steps: the loop's size is worked out from them, never
 * stored, so moving a step to the right or down makes the loop bigger as it goes.
 *
 *   ┌ For each lead ──────────── (in) ● … ● (out) ┐
 *   │  welcome ──► wait 2 days ──► follow-up        │  ← body, relative positions
 *   └──────────────────────────────────────────────┘
 */
import type { XYPosition } from '@xyflow/react';
import { FOR_EACH } from '../../core/step-kinds.ts';
import type { Size, StepNode } from './editor-changes.ts';

/** From editor.css: `.loop-node__head` is this tall; the body starts below it. */
export const LOOP_HEADER = 96;
/** The nearest a body step comes to the loop's left and top edges. */
export const BODY_INSET: XYPosition = { x: 24, y: LOOP_HEADER + 16 };
/** Room kept right of and below the body's last steps, so there is space to drop another. */
const BODY_ROOM = { x: 48, y: 40 };
/** An empty loop still has room for a step or two, and for the words that say what to do. */
export const LOOP_MIN_SIZE: Size = { width: 600, height: BODY_INSET.y + 84 + BODY_ROOM.y };
// The size of a step not yet measured (as canvas-view.ts assumes).
const STEP_SIZE: Size = { width: 240, height: 84 };

export function isLoop(node: Pick<StepNode, 'type'> | undefined): boolean {
  return node?.type === FOR_EACH.type;
}

/** Whether a step of this kind may go inside a loop: not a trigger, and not a loop (loops do not nest). */
export function canGoInside(kind: string | undefined): boolean {
  return kind !== undefined && !kind.startsWith('trigger.') && kind !== FOR_EACH.type;
}

/** Every loop's size, from the steps inside it. */
export function loopSizes(nodes: readonly StepNode[]): Map<string, Size> {
  const sizes = new Map<string, Size>();
  for (const node of nodes) if (isLoop(node)) sizes.set(node.id, { ...LOOP_MIN_SIZE });
  for (const node of nodes) {
    const size = node.parentId === undefined ? undefined : sizes.get(node.parentId);
    if (!size) continue;
    const width = node.measured?.width ?? STEP_SIZE.width;
    const height = node.measured?.height ?? STEP_SIZE.height;
    size.width = Math.max(size.width, node.position.x + width + BODY_ROOM.x);
    size.height = Math.max(size.height, node.position.y + height + BODY_ROOM.y);
  }
  return sizes;
}

/** A body step's position kept inside its loop, below the header. */
export function insideBody(position: XYPosition): XYPosition {
  if (position.x >= BODY_INSET.x && position.y >= BODY_INSET.y) return position;
  return { x: Math.max(BODY_INSET.x, position.x), y: Math.max(BODY_INSET.y, position.y) };
}

/** The loop whose box holds a point on the canvas (flow coordinates); null when none does. */
export function loopAt(nodes: readonly StepNode[], point: XYPosition): StepNode | null {
  const sizes = loopSizes(nodes);
  for (const node of nodes) {
    const size = sizes.get(node.id);
    if (!size) continue;
    const inside = point.x >= node.position.x && point.x <= node.position.x + size.width && point.y >= node.position.y && point.y <= node.position.y + size.height;
    if (inside) return node;
  }
  return null;
}

/** The steps inside a loop. */
export function bodySteps(nodes: readonly StepNode[], loopId: string): StepNode[] {
  return nodes.filter((node) => node.parentId === loopId);
}

export interface MenuPlace {
  top: number;
  right: number;
}

type Anchor = Pick<DOMRect, 'top' | 'bottom' | 'right'>;

/**
 * Where a loop's "Add a step inside" list goes on the page: right-aligned with the button,
 * under it, or over it when there is no room below; with room on neither side, as low as
 * lets it end on the page (its CSS caps its height at the page's). A button partly or wholly
 * out of the canvas (`within`: the loop has just grown past its edge and the pan to it is on
 * its way) counts as at the canvas's edge, so the list stays over the canvas.
 */
export function menuPlace(button: Anchor, menuHeight: number, page: { width: number; height: number }, within?: Pick<DOMRect, 'top' | 'bottom' | 'left' | 'right'>, gap = 4): MenuPlace {
  const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);
  const at: Anchor = within
    ? { top: clamp(button.top, within.top, within.bottom), bottom: clamp(button.bottom, within.top, within.bottom), right: clamp(button.right, within.left, within.right) }
    : button;
  const right = Math.max(0, page.width - at.right);
  const below = at.bottom + gap;
  if (below + menuHeight <= page.height) return { top: below, right };
  const above = at.top - gap - menuHeight;
  if (above >= 0) return { top: above, right };
  return { top: Math.max(gap, page.height - gap - menuHeight), right };
}
