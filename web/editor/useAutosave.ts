/**
 * Saves the draft shortly after each change, and at once when the page is hidden. Every
 * save goes through the page's one save queue (draft-saves.ts), so saves never overlap
 * and an older draft never lands after a newer one. `flush` (used by Publish, Run and
 * Export) waits until the server has the flow exactly as it is on the canvas.
 */
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { isSavingDraft, saveCanvas, subscribeToDraftSaves } from './draft-saves.ts';
import { problemsOf } from './problem-details.ts';
import { useSampleMistake } from './sample-draft.ts';
import { selectDirty, selectFlowId, selectRevision, useEditorStore } from './useEditorStore.ts';

// Long enough that typing a word is one save, short enough that nothing waits on it.
const SAVE_DELAY_MS = 600;

const REFUSED = 'The server did not accept the draft; fix the problems marked in red.';

/** `invalid`: the sample input being typed is not JSON, so it is not saved (sample-draft.ts). */
export type SaveState = 'saved' | 'unsaved' | 'saving' | 'failed' | 'invalid';

/** True while a draft of this flow is on its way to the server or waiting to go. */
export function useSavingDraft(flowId: string): boolean {
  return useSyncExternalStore(subscribeToDraftSaves, () => isSavingDraft(flowId));
}

export function useAutosave(flowId: string) {
  const revision = useEditorStore(selectRevision);
  const dirty = useEditorStore(selectDirty);
  const loaded = useEditorStore(selectFlowId) === flowId;
  const saving = useSavingDraft(flowId);
  const sampleMistake = useSampleMistake(flowId);
  const [failure, setFailure] = useState<string | null>(null);

  const save = useCallback(async (): Promise<void> => {
    const state = useEditorStore.getState();
    // A blank name is mid-typing (the name field fills one in when left); save after that.
    if (state.flowId !== flowId || state.meta.name.trim() === '') return;
    try {
      await saveCanvas(state);
      setFailure(null);
    } catch (error) {
      // A refused draft still says what is wrong with it; the canvas shows that.
      setFailure(problemsOf(error) ? REFUSED : error instanceof Error ? error.message : String(error));
      throw error;
    }
  }, [flowId]);

  useEffect(() => {
    if (!loaded || !dirty) return;
    const timer = setTimeout(() => void save().catch(() => undefined), SAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [loaded, dirty, revision, save]);

  // Leaving the page with unsaved changes (or a sample that is not JSON yet) asks first (the browser shows its own words);
  // hiding it (another tab, the page closing) saves without waiting for the pause.
  useEffect(() => {
    if (!dirty && !sampleMistake) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    const saveWhenHidden = () => {
      if (document.visibilityState === 'hidden') void save().catch(() => undefined);
    };
    window.addEventListener('beforeunload', warn);
    document.addEventListener('visibilitychange', saveWhenHidden);
    return () => {
      window.removeEventListener('beforeunload', warn);
      document.removeEventListener('visibilitychange', saveWhenHidden);
    };
  }, [dirty, sampleMistake, save]);

  // The rest of the flow may be saved, but a sample that is not JSON is not: never say "Saved" then.
  const state: SaveState = saving ? 'saving' : failure && dirty ? 'failed' : sampleMistake ? 'invalid' : dirty ? 'unsaved' : 'saved';
  // Trying again only helps when the server could not be reached, not when it named problems.
  const canRetry = failure !== null && failure !== REFUSED;
  // `flush` saves now if anything is unsaved, and throws when the server refuses.
  return { state, failure, canRetry, flush: save, retry: () => void save().catch(() => undefined) };
}
