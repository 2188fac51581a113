/**
 * Deleting steps. A For each step is deleted with the steps inside it (a body cannot run
 * without its loop), so when that would remove steps the person did not pick, the editor
 * asks first and names how many; the whole deletion is one undo step either way.
 */
import type { StepNode } from './editor-changes.ts';
import { dispatch, useEditorStore } from './useEditorStore.ts';

/** The question to ask before deleting these steps; null when nothing else goes with them. */
export function deletionQuestion(nodes: readonly StepNode[], nodeIds: readonly string[]): string | null {
  const picked = new Set(nodeIds);
  const loops = nodes.filter((node) => picked.has(node.id) && nodes.some((child) => child.parentId === node.id && !picked.has(child.id)));
  if (loops.length === 0) return null;
  const inside = nodes.filter((node) => node.parentId !== undefined && loops.some((loop) => loop.id === node.parentId) && !picked.has(node.id)).length;
  const steps = `${inside} step${inside === 1 ? '' : 's'}`;
  const names = loops.map((loop) => `“${typeof loop.data.label === 'string' && loop.data.label.trim() !== '' ? loop.data.label : loop.id}”`).join(' and ');
  return `Delete ${names} and the ${steps} inside ${loops.length === 1 ? 'it' : 'them'}? Undo brings them back.`;
}

/** Deletes steps and connections, asking first when a loop would take its body with it. */
export function deleteSteps(nodeIds: readonly string[], edgeIds: readonly string[] = []): void {
  const question = deletionQuestion(useEditorStore.getState().nodes, nodeIds);
  if (question !== null && !window.confirm(question)) return;
  dispatch({ type: 'delete', nodeIds, edgeIds });
}
