/**
 * Saves the draft shortly after each change. Saves never overlap: a change made while
 * one is on its way is saved by the next, and `flush` (used by Publish, Run and Export)
 * waits until the server has the flow exactly as it is on the canvas.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { trpc } from '../lib/trpc.ts';
import { problemsOf } from './problem-details.ts';
import { isDirty } from './editor-state.ts';
import { documentFromSnapshot } from './flow-document.ts';
import { dispatch, selectDirty, selectFlowId, selectRevision, useEditorStore } from './useEditorStore.ts';

// Long enough that typing a word is one save, short enough that nothing waits on it.
const SAVE_DELAY_MS = 600;

const REFUSED = 'The server did not accept the draft; fix the problems marked in red.';

export type SaveState = 'saved' | 'unsaved' | 'saving' | 'failed';

export function useAutosave(flowId: string) {
  const queryClient = useQueryClient();
  const revision = useEditorStore(selectRevision);
  const dirty = useEditorStore(selectDirty);
  const loaded = useEditorStore(selectFlowId) === flowId;
  const inFlight = useRef<Promise<void> | null>(null);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const saveDraft = useMutation(trpc.flows.saveDraft.mutationOptions());
  const { mutateAsync } = saveDraft;

  const saveOnce = useCallback(async () => {
    const state = useEditorStore.getState();
    // A blank name is mid-typing (the name field fills one in when left); save after that.
    if (state.flowId !== flowId || !isDirty(state) || state.meta.name.trim() === '') return;
    const savedRevision = state.revision;
    const document = documentFromSnapshot(state);
    setSaving(true);
    try {
      const { problems } = await mutateAsync({ id: flowId, document });
      dispatch({ type: 'saved', revision: savedRevision });
      setFailure(null);
      // The server's answer about the draft (its problems) belongs to the query cache.
      queryClient.setQueryData(trpc.flows.get.queryKey({ id: flowId }), (old) => (old ? { ...old, name: document.name, draft: document, problems } : old));
    } catch (error) {
      // A refused draft still says what is wrong with it; the canvas shows that.
      const problems = problemsOf(error);
      if (problems) queryClient.setQueryData(trpc.flows.get.queryKey({ id: flowId }), (old) => (old ? { ...old, problems } : old));
      setFailure(problems ? REFUSED : error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      setSaving(false);
    }
  }, [flowId, mutateAsync, queryClient]);

  const save = useCallback(async (): Promise<void> => {
    while (inFlight.current) await inFlight.current;
    const attempt = saveOnce();
    // The caller gets the failure; the chain used for waiting must not reject unobserved.
    inFlight.current = attempt
      .catch(() => undefined)
      .finally(() => {
        inFlight.current = null;
      });
    return attempt;
  }, [saveOnce]);

  useEffect(() => {
    if (!loaded || !dirty) return;
    const timer = setTimeout(() => void save().catch(() => undefined), SAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [loaded, dirty, revision, save]);

  // Leaving the page with unsaved changes asks first (the browser shows its own words).
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  /** Saves now if anything is unsaved; throws when the server refuses. */
  const flush = useCallback(async () => {
    await save();
    if (isDirty(useEditorStore.getState())) await save();
  }, [save]);

  const state: SaveState = saving ? 'saving' : failure && dirty ? 'failed' : dirty ? 'unsaved' : 'saved';
  // Trying again only helps when the server could not be reached, not when it named problems.
  const canRetry = failure !== null && failure !== REFUSED;
  return { state, failure, canRetry, flush, retry: () => void save().catch(() => undefined) };
}
