/**
 * A banner for alerts that could not be sent: on the runs page (all of them) and on a run's
 * page (its own). Each says why in the receiver's words and when the next try is; a
 * person may send them again at once.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dateFormat } from '../lib/date-format.ts';
import { trpc } from '../lib/trpc.ts';
import './alerts.css';

const at = dateFormat({ timeStyle: 'short' });

const STATUS_WORDS: Record<string, string> = {
  pending: 'will be tried again',
  sending: 'is being sent again',
  given_up: 'is no longer tried',
  uncertain: 'may or may not have arrived',
};

export function UndeliveredAlerts({ runId }: { runId?: string }) {
  const queryClient = useQueryClient();
  const input = runId ? { runId } : {};
  // Looked at more often while some are shown, so one sent again leaves the page soon.
  const alerts = useQuery({ ...trpc.alerts.undelivered.queryOptions(input), refetchInterval: (query) => ((query.state.data?.length ?? 0) > 0 ? 3_000 : 15_000) });
  const retry = useMutation(trpc.alerts.retryNow.mutationOptions({
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.alerts.undelivered.queryKey() }),
  }));
  const list = alerts.data ?? [];
  if (list.length === 0) return null;
  const first = list[0]!;
  const retryable = list.filter((alert) => alert.status !== 'uncertain').map((alert) => alert.id);
  return (
    <div className="alert-banner" role="status" data-testid="alerts.undelivered">
      <p className="alert-banner__title">
        {list.length === 1 ? '1 alert could not be sent' : `${list.length} alerts could not be sent`}: {first.problem}
      </p>
      <p className="alert-banner__detail">
        The latest {STATUS_WORDS[first.status] ?? first.status}
        {first.status === 'pending' && first.nextTryAt !== null ? ` at ${at(first.nextTryAt)}` : ''}
        {first.attempts > 0 ? ` (tried ${first.attempts} time${first.attempts === 1 ? '' : 's'})` : ''}.
      </p>
      {retryable.length > 0 && (
        <button type="button" className="button-secondary small" disabled={retry.isPending} onClick={() => retry.mutate({ ids: retryable.slice(0, 200) })}>
          Send again now
        </button>
      )}
      {retry.error && <p role="alert" className="error">{retry.error.message}</p>}
    </div>
  );
}
