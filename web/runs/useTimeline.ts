/**
 * A run's timeline, paged in with `runs.timeline` and kept live by asking only for the
 * events after the last one held. The first page is shown while the rest arrive, so a
 * 10,000-event run opens at the speed of its first page.
 */
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '../../server/trpc/router.ts';
import { trpc } from '../lib/trpc.ts';
import type { TimelineEntry } from './run-types.ts';

// Pages are large: sent on their own rather than batched with the run's details, so the
// first page shows without waiting for the rest of the view's answers.
const pageClient = createTRPCClient<AppRouter>({ links: [httpLink({ url: '/trpc' })] });

// A small first page shows the start of the timeline at once; then the largest page the
// server gives (5,000), for few round trips through long timelines.
const FIRST_PAGE_SIZE = 400;
const PAGE_SIZE = 5000;
// Events are append-only, so polling the tail is cheap: usually an empty answer.
const POLL_MS = 1000;

export interface TimelineData {
  events: TimelineEntry[];
}

export const timelineKey = (runId: string) => ['run-timeline', runId] as const;

async function fetchNewEvents(queryClient: QueryClient, runId: string, signal: AbortSignal): Promise<TimelineData> {
  const key = timelineKey(runId);
  const held = queryClient.getQueryData<TimelineData>(key);
  let events = held?.events ?? [];
  const lastId = () => events.at(-1)?.id ?? 0;
  let grew = false;
  for (let first = events.length === 0; ; first = false) {
    const page = await pageClient.runs.timeline.query({ runId, afterId: lastId(), limit: first ? FIRST_PAGE_SIZE : PAGE_SIZE }, { signal });
    if (page.events.length > 0) {
      events = events.concat(page.events);
      grew = true;
    }
    // A newer fetch (after a rerun, say) replaced this one: it must not write over that one's result.
    if (page.nextAfterId === null || page.events.length === 0 || signal.aborted) break;
    // Show what has arrived while the rest loads.
    queryClient.setQueryData<TimelineData>(key, { events });
    if (first) {
      // The run's details carry its timeline too (as the server sends them today): taking the
      // rest from there spares the server reading and sending the same events twice. Paging
      // then goes on after the last of them, so nothing is missed if the details hold fewer.
      const detail = await queryClient.ensureQueryData(trpc.runs.get.queryOptions({ runId }));
      const after = lastId();
      events = events.concat(detail.timeline.filter((event) => (event.id ?? 0) > after));
      if (!signal.aborted) queryClient.setQueryData<TimelineData>(key, { events });
    }
  }
  return grew || !held ? { events } : held;
}

export function useTimeline(runId: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: timelineKey(runId),
    queryFn: ({ signal }) => fetchNewEvents(queryClient, runId, signal),
    // A run that cannot be read (deleted, mistyped id) is not asked for again and again.
    refetchInterval: (query) => (query.state.error ? false : POLL_MS),
    // The data is built up incrementally; comparing 10,000 events each second would be waste.
    structuralSharing: false,
    staleTime: 0,
  });
}
