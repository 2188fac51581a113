/**
 * The toolbar's actions on the whole flow: publish a version, test the draft with the
 * chosen sample (chosen-sample.ts), export it. Each first saves what is on the canvas, so the action always sees
 * the flow as the person sees it.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { navigate } from '../lib/router.ts';
import { trpc, trpcClient } from '../lib/trpc.ts';
import { downloadDocument } from './download.ts';
import { problemsOf } from './problem-details.ts';
import { placeOf, sampleMistakeOf } from './sample-draft.ts';
import { chosenSampleNow } from './chosen-sample.ts';
import { startTestRun } from './start-run.ts';
import type { KeyChangeSummary } from './PublishKeyChangesDialog.tsx';
import type { FlowProblem } from './useStepProblems.ts';

export type Busy = 'publish' | 'run' | 'export' | null;

export interface Notice {
  tone: 'success' | 'error';
  title: string;
  detail?: string;
  problems?: FlowProblem[];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `onSampleMistake` shows the sample input: Run and Publish refuse while it is not JSON,
 * since either would quietly use the last valid sample instead of the one on screen.
 */
export function useFlowActions(flowId: string, flush: () => Promise<void>, onSampleMistake: () => void) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<Busy>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  // Set while the publish waits for the person to confirm changed keys.
  const [keyChanges, setKeyChanges] = useState<KeyChangeSummary | null>(null);
  const publishMutation = useMutation(trpc.flows.publish.mutationOptions());

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.flows.get.queryKey({ id: flowId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.flows.list.queryKey() }),
    ]);

  async function publishNow(confirmKeyChanges = false): Promise<number> {
    const result = await publishMutation.mutateAsync({ id: flowId, confirmKeyChanges });
    await refresh();
    return result.version;
  }

  async function guarded(kind: Exclude<Busy, null>, action: () => Promise<void>, failTitle: string) {
    const mistake = kind === 'export' ? null : sampleMistakeOf(flowId);
    if (mistake) {
      setNotice({
        tone: 'error',
        title: failTitle,
        detail: `The sample input is not valid JSON (${placeOf(mistake)}: ${mistake.problem}). Fix it, or empty the box, then try again.`,
      });
      onSampleMistake();
      return;
    }
    setBusy(kind);
    setNotice(null);
    try {
      await action();
    } catch (error) {
      const problems = problemsOf(error)?.filter((problem) => problem.severity === 'error');
      setNotice({ tone: 'error', title: failTitle, ...(problems && problems.length > 0 ? { problems } : { detail: messageOf(error) }) });
    } finally {
      setBusy(null);
    }
  }

  const publish = () =>
    guarded(
      'publish',
      async () => {
        await flush();
        const summary = await trpcClient.flows.keyChanges.query({ id: flowId });
        if (summary.steps.length > 0) {
          setKeyChanges(summary);
          return;
        }
        const version = await publishNow();
        setNotice({ tone: 'success', title: `Published version ${version}`, detail: 'New runs use this version. Runs already under way finish on the version they started with.' });
      },
      'This flow cannot be published yet',
    );

  /** The second click of a publish that changes keys. */
  const confirmKeyChanges = () =>
    guarded(
      'publish',
      async () => {
        const version = await publishNow(true);
        setKeyChanges(null);
        setNotice({ tone: 'success', title: `Published version ${version}`, detail: 'The new keys apply from now on; your confirmation is recorded on the version.' });
      },
      'This flow cannot be published yet',
    );

  /**
   * Tests the draft as it is on screen, then opens the test run. Nothing is published: a
   * test never changes what live events run.
   */
  const run = (realServices = false) =>
    guarded(
      'run',
      async () => {
        await flush();
        const { runId } = await startTestRun(flowId, chosenSampleNow().input, realServices);
        navigate(`/runs/${encodeURIComponent(runId)}`);
      },
      'The flow could not be tested',
    );

  const exportFlow = () =>
    guarded(
      'export',
      async () => {
        await flush();
        downloadDocument(await trpcClient.flows.export.query({ id: flowId }));
      },
      'The flow could not be exported',
    );

  return { busy, notice, dismiss: () => setNotice(null), publish, run, exportFlow, keyChanges, confirmKeyChanges, cancelKeyChanges: () => setKeyChanges(null) };
}
