/**
 * A step whose outcome is unknown, and the three decisions a person can make about it,
 * each with what it will lead to.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { trpc } from '../lib/trpc.ts';
import { effectPhrase } from './timeline-sentences.ts';
import type { StepInfo, TimelineEntry } from './run-types.ts';
import { refreshRun } from './useTimeline.ts';

type Decision = 'happened' | 'do-it' | 'skip';

export function ReviewPanel({ runId, step, events }: { runId: string; step: StepInfo; events: readonly TimelineEntry[] }) {
  const queryClient = useQueryClient();
  const resolve = useMutation(
    trpc.runs.resolve.mutationOptions({
      onSuccess: () => refreshRun(queryClient, runId),
    }),
  );
  const uncertain = [...events].reverse().find((event) => event.type === 'step.uncertain');
  const why = typeof uncertain?.data?.message === 'string' ? uncertain.data.message : 'The receiver did not confirm whether it acted.';
  const decide = (decision: Decision) => resolve.mutate({ runId, nodeId: step.nodeId, decision });
  const headingId = `review-${step.nodeId}`;

  return (
    <section className="review" aria-labelledby={headingId} data-testid="review">
      <div className="review__intro">
        <h2 id={headingId}>“{step.label}” needs your decision</h2>
        <p>{why} Onceflow will not guess, because guessing wrong could do it twice. Check the receiver if you can, then choose:</p>
      </div>
      <div className="review__choices">
        <div className="review__choice">
          <button type="button" className="button-primary" disabled={resolve.isPending} onClick={() => decide('happened')}>It happened</button>
          <p>It is recorded as done and the run goes on; {effectPhrase(step.type, step.label)}.</p>
        </div>
        <div className="review__choice">
          <button type="button" className="button-secondary" disabled={resolve.isPending} onClick={() => decide('do-it')}>It did not happen — do it now</button>
          <p>It is done once more right away. If it did happen after all, it will have happened twice.</p>
        </div>
        <div className="review__choice">
          <button type="button" className="button-secondary" disabled={resolve.isPending} onClick={() => decide('skip')}>Skip</button>
          <p>This run goes on without the step. Whether it happened stays unknown, so a later run with the same key stops and asks again.</p>
        </div>
      </div>
      {resolve.error && <p role="alert" className="error">{resolve.error.message}</p>}
    </section>
  );
}
