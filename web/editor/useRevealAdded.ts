import { useReactFlow } from '@xyflow/react';
import { useCallback } from 'react';
import { STEP_WIDTH } from './add-kind.ts';
import { drawableNodes, panToReveal, STEP_MIN_HEIGHT } from './canvas-view.ts';
import { selectSelectedNode, useEditorStore } from './useEditorStore.ts';

/** The canvas's box on screen, or undefined before it is drawn. */
export function canvasBox(): DOMRect | undefined {
  return document.querySelector('[data-testid="editor.canvas"]')?.getBoundingClientRect();
}

/**
 * After a click adds a step (which selects it), pans the canvas so the new step is in view.
 * Every way of adding by click uses it — the palette and a loop's "Add a step inside" — so
 * none can leave a new step beyond the canvas's edge.
 */
export function useRevealAdded(): () => void {
  const { getViewport, setViewport } = useReactFlow();
  return useCallback(() => {
    const box = canvasBox();
    const added = selectSelectedNode(useEditorStore.getState());
    if (!added || !box) return;
    // As drawn: a new For each is a box that holds steps, far wider than a step, and the
    // button that adds a step inside it is at its right end.
    const { nodes } = useEditorStore.getState();
    const drawn = drawableNodes(nodes).find((node) => node.id === added.id) ?? added;
    const size = { width: drawn.measured?.width ?? STEP_WIDTH, height: drawn.measured?.height ?? STEP_MIN_HEIGHT };
    // A step inside a loop is placed relative to the loop.
    const parent = added.parentId === undefined ? undefined : nodes.find((node) => node.id === added.parentId);
    const at = parent ? { x: parent.position.x + added.position.x, y: parent.position.y + added.position.y } : added.position;
    // Pan only when the new step landed out of view, and only as far as it takes: the
    // steps before it stay where the person was looking.
    const next = panToReveal(getViewport(), { width: box.width, height: box.height }, { ...at, ...size });
    if (next) void setViewport(next, { duration: 250 });
  }, [getViewport, setViewport]);
}
