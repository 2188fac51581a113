/**
 * Where the editor's drafts go: one save queue for the whole page (save-queue.ts), so a
 * save asked for when the editor closes and one asked for by typing a moment earlier
 * cannot cross on the way, even when the same flow is opened again meanwhile.
 *
 * A confirmed save marks its revision saved and tells the page's cached answers about it
 * (the flow's draft and problems, the flow list); a refused one still says what is wrong.
 */
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { queryClient, trpc, trpcClient } from '../lib/trpc.ts';
import { isDirty, type EditorState } from './editor-state.ts';
import { documentFromSnapshot } from './flow-document.ts';
import { problemsOf } from './problem-details.ts';
import { createSaveQueue } from './save-queue.ts';
import { dispatch } from './useEditorStore.ts';

const drafts = createSaveQueue<FlowDocument>(async (flowId, document, revision) => {
  const flowKey = trpc.flows.get.queryKey({ id: flowId });
  try {
    const { problems } = await trpcClient.flows.saveDraft.mutate({ id: flowId, document });
    dispatch({ type: 'saved', revision });
    queryClient.setQueryData(flowKey, (old) => (old ? { ...old, name: document.name, draft: document, problems } : old));
    void queryClient.invalidateQueries({ queryKey: trpc.flows.list.queryKey() });
  } catch (error) {
    const problems = problemsOf(error);
    if (problems) queryClient.setQueryData(flowKey, (old) => (old ? { ...old, problems } : old));
    throw error;
  }
});

/**
 * Saves the canvas as it is now, if it has unsaved changes. Resolves once the server has
 * it (or a newer draft); rejects when the server refused it or could not be reached.
 */
export function saveCanvas(state: EditorState): Promise<void> {
  if (state.flowId === null || !isDirty(state)) return Promise.resolve();
  return drafts.save(state.flowId, state.revision, documentFromSnapshot(state));
}

/** True while a draft of this flow is on its way to the server or waiting to go. */
export const isSavingDraft = (flowId: string): boolean => drafts.isSaving(flowId);

/** Calls the listener whenever some flow starts or stops saving. */
export const subscribeToDraftSaves = (listener: () => void): (() => void) => drafts.subscribe(listener);
