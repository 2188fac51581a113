import { useReactFlow } from '@xyflow/react';
import { useCallback } from 'react';
import { addedStepBox, panToReveal } from './canvas-view.ts';
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
    const canvas = canvasBox();
    const state = useEditorStore.getState();
    const added = selectSelectedNode(state);
    const box = added && addedStepBox(state.nodes, added.id);
    if (!canvas || !box) return;
    // Pan only when the new step landed out of view, and only as far as it takes: the
    // steps before it stay where the person was looking.
    const next = panToReveal(getViewport(), { width: canvas.width, height: canvas.height }, box);
    if (next) void setViewport(next, { duration: 250 });
  }, [getViewport, setViewport]);
}
