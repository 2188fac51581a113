/**
 * What the runs list says when it has nothing to show. Test runs stay out of the list
 * unless asked for, so a list of live runs that is empty asks whether test runs would
 * match the same filters: someone who has only tested a flow so far should not read
 * "No runs yet" under the run they just made.
 */
import { useQuery } from '@tanstack/react-query';
import { trpc } from '../lib/trpc.ts';
import type { RunStatus } from './run-types.ts';

export interface RunFilters {
  status?: RunStatus;
  flowId?: string;
  search?: string;
}

export function EmptyRuns({ filters, liveOnly, onShowTests }: {
  filters: RunFilters;
  /** Whether the list shows live runs only (the default). */
  liveOnly: boolean;
  onShowTests(): void;
}) {
  // Anything beyond the default (live runs, no filter) narrows the list.
  const filtered = !liveOnly || Object.keys(filters).length > 0;
  const tests = useQuery({
    ...trpc.runs.list.queryOptions({ limit: 1, mode: 'test', ...filters }),
    enabled: liveOnly,
    refetchInterval: 5000,
  });
  const hasTests = liveOnly && (tests.data?.runs.length ?? 0) > 0;
  return (
    <p className="empty-card" data-testid="runs.empty">
      {hasTests ? (
        <>
          {filtered ? 'No live runs match these filters, but test runs do.' : 'No live runs yet. Test runs, made from the editor, are kept apart from them.'}{' '}
          <button type="button" className="link-button empty-card__action" onClick={onShowTests}>Show test runs</button>
        </>
      ) : filtered ? 'No runs match these filters.' : 'No runs yet. Run a flow from its editor, or send an event to its webhook address.'}
    </p>
  );
}
