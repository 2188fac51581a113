/**
 * The Cancel button of a queued, running, waiting or needs-review run, and the dialog that
 * asks first. A step that is acting finishes and is recorded; nothing new starts.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import type { RunDetail } from './run-types.ts';
import { trpc } from '../lib/trpc.ts';
import type { RunStatus } from './run-types.ts';
import { Dialog } from './Dialog.tsx';
import { refreshRun } from './useTimeline.ts';

const CANCELLABLE: ReadonlySet<RunStatus> = new Set<RunStatus>(['queued', 'held', 'running', 'waiting', 'needs_review']);

/** What cancelling does, in the run's own situation. */
function consequence(status: RunStatus): string {
  switch (status) {
    case 'running':
      return 'A step that is acting right now finishes and its outcome is recorded; no step after it starts.';
    case 'waiting':
      return 'The run is waiting; it will not wake up, and no step after the wait starts.';
    case 'queued':
      return 'The run has not started; it never will.';
    default:
      return 'The step waiting for a decision stays undecided, and no step after it starts.';
  }
}

/** Every second, at most this many times, while a step that was acting is not yet recorded. */
const FOLLOW_TRIES = 180;

function stillActing(queryClient: QueryClient, runId: string, nodeIds: readonly string[]): boolean {
  const detail = queryClient.getQueryData<RunDetail>(trpc.runs.get.queryKey({ runId }));
  // Until its outcome is recorded an acting step has no checkpoint: it shows as running or not reached.
  return nodeIds.some((nodeId) => ['running', 'not_reached'].includes(detail?.steps.find((step) => step.nodeId === nodeId)?.status ?? 'running'));
}

/**
 * A cancelled run is settled, so the page stops watching it; a step that was acting still
 * records its outcome afterwards. Follow the run until that record is in.
 */
function useFollowActing(runId: string, nodeIds: readonly string[]) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (nodeIds.length === 0) return;
    let tries = 0;
    let stopped = false;
    const timer = setInterval(() => {
      if (stopped) return;
      tries++;
      void refreshRun(queryClient, runId).then(() => {
        if (tries >= FOLLOW_TRIES || !stillActing(queryClient, runId, nodeIds)) {
          stopped = true;
          clearInterval(timer);
        }
      });
    }, 1000);
    return () => clearInterval(timer);
  }, [queryClient, runId, nodeIds]);
}

/** `startsChildren`: the run's flow has Run flow steps, whose child runs are cancelled with it. */
export function CancelRun({ run, startsChildren = false }: { run: { id: string; seq: number; status: RunStatus }; startsChildren?: boolean }) {
  const [open, setOpen] = useState(false);
  const [acting, setActing] = useState<string[]>([]);
  const queryClient = useQueryClient();
  useFollowActing(run.id, acting);
  const cancel = useMutation(
    trpc.runs.cancel.mutationOptions({
      onSuccess: async (result) => {
        setOpen(false);
        setActing(result.acting.map((step) => step.nodeId));
        await Promise.all([refreshRun(queryClient, run.id), queryClient.invalidateQueries({ queryKey: trpc.runs.list.queryKey() })]);
      },
    }),
  );
  if (!CANCELLABLE.has(run.status) && !open) return null;
  const close = () => {
    cancel.reset();
    setOpen(false);
  };

  return (
    <>
      <button type="button" className="button-secondary" data-testid="run.cancel" onClick={() => setOpen(true)} title="Stops the run; a step that is acting finishes first.">
        Cancel run
      </button>
      {open && (
        <Dialog
          title={`Cancel run #${run.seq}?`}
          onClose={close}
          testId="cancel.dialog"
          footer={
            <>
              <button type="button" className="button-secondary" onClick={close}>Keep it going</button>
              <button type="button" className="button-primary" disabled={cancel.isPending} onClick={() => cancel.mutate({ runId: run.id })}>
                {cancel.isPending ? 'Cancelling…' : 'Cancel run'}
              </button>
            </>
          }
        >
          <p className="dialog__intro">
            {consequence(run.status)}
            {startsChildren ? ' The child runs it started that have not ended are cancelled too.' : ''} A cancelled run cannot be continued; you can replay it as a new run later.
          </p>
          {cancel.error && <p role="alert" className="error">{cancel.error.message}</p>}
        </Dialog>
      )}
    </>
  );
}
