/**
 * Pause and Resume for one flow, with what waits: "Paused — 37 events waiting". While a
 * flow is paused its webhooks and schedule fires are still recorded, but their runs are
 * held; Resume runs them in the order they arrived (engine/flow-pause.ts). Used on the
 * flow list (rows and phone cards) and in the editor's header.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/trpc/router.ts';
import { trpc } from '../lib/trpc.ts';
import './flow-pause.css';

export type FlowPauseState = inferRouterOutputs<AppRouter>['flows']['pauseState'];

/** "Paused — 37 events waiting" (the words the issue asks for). */
export function pausedWords(waiting: number): string {
  return `Paused — ${waiting.toLocaleString()} ${waiting === 1 ? 'event' : 'events'} waiting`;
}

/** Every paused flow, polled so counts follow the deliveries; flows absent here run normally. */
export function usePausedFlows() {
  return useQuery({ ...trpc.flows.pausedFlows.queryOptions(), refetchInterval: 3000 });
}

interface FlowPauseControlProps {
  flowId: string;
  flowName: string;
  /** The flow's state when the caller already has it (the list); else it is asked for. */
  state?: FlowPauseState | null;
}

export function FlowPauseControl({ flowId, flowName, state: given }: FlowPauseControlProps) {
  const queryClient = useQueryClient();
  const own = useQuery({ ...trpc.flows.pauseState.queryOptions({ id: flowId }), refetchInterval: 3000, enabled: given === undefined });
  const state = given === undefined ? own.data : given;
  const refresh = () => Promise.all([
    queryClient.invalidateQueries({ queryKey: trpc.flows.pausedFlows.queryKey() }),
    queryClient.invalidateQueries({ queryKey: trpc.flows.pauseState.queryKey({ id: flowId }) }),
  ]);
  const pause = useMutation(trpc.flows.pause.mutationOptions({ onSuccess: refresh }));
  const resume = useMutation(trpc.flows.resume.mutationOptions({ onSuccess: refresh }));
  const busy = pause.isPending || resume.isPending;
  const failure = pause.error ?? resume.error;
  const paused = state?.paused === true;
  const missed = state?.missedScheduleFires ?? 0;
  const hidden = <span className="visually-hidden"> {flowName}</span>;

  return (
    <span className="flow-pause" data-testid="flow-pause">
      {paused && (
        <span className="flow-pause__status" role="status" data-testid="flow-pause.status" title={state?.pausedBy ? `Paused by ${state.pausedBy}` : undefined}>
          {pausedWords(state?.waiting ?? 0)}
        </span>
      )}
      {paused ? (
        <>
          <button type="button" className="button-secondary flow-pause__button" disabled={busy} onClick={() => resume.mutate({ id: flowId })}>
            {resume.isPending ? 'Resuming…' : 'Resume'}{hidden}
          </button>
          {missed > 0 && (
            <button type="button" className="button-secondary flow-pause__button" disabled={busy} onClick={() => resume.mutate({ id: flowId, dropScheduleFires: true })}>
              Resume and drop {missed} missed schedule {missed === 1 ? 'fire' : 'fires'}{hidden}
            </button>
          )}
        </>
      ) : (
        <button
          type="button"
          className="button-secondary flow-pause__button"
          disabled={busy || state === undefined}
          title="Stops this flow's side effects: webhooks are still recorded, their runs wait until you resume"
          onClick={() => pause.mutate({ id: flowId })}
        >
          {pause.isPending ? 'Pausing…' : 'Pause'}{hidden}
        </button>
      )}
      {failure && <span role="alert" className="error flow-pause__error">{failure.message}</span>}
    </span>
  );
}
