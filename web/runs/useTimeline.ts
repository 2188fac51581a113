/**
 * A run's timeline: paged in through `runs.timeline` (the page's only reader of events),
 * then kept live by asking for the run's status and the events after the last one held.
 * The first page shows while the rest arrive, so a 10,000-event run opens at the speed of
 * its first page, and a live update is only what changed.
 */
import { skipToken, useInfiniteQuery, useQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { trpc } from '../lib/trpc.ts';
import type { RunStatus, TimelineEntry, TimelinePage } from './run-types.ts';
import { isActive } from './run-words.ts';

const PAGE_SIZE = 2000;
const LIVE_MS = 1000;
const NO_EVENTS: TimelineEntry[] = [];

const timelineOptions = (runId: string) =>
  trpc.runs.timeline.infiniteQueryOptions(
    { runId, limit: PAGE_SIZE },
    { initialCursor: 0, getNextPageParam: (page) => page.nextAfterId ?? undefined, staleTime: Infinity, structuralSharing: false },
  );

/** After a person's action the run moves on: look for its changes (and its steps) again. */
export function refreshRun(queryClient: QueryClient, runId: string) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ runId }) }),
    queryClient.invalidateQueries({ queryKey: trpc.runs.changes.queryKey() }),
  ]);
}

export function useTimeline(runId: string, knownStatus: RunStatus | undefined) {
  const queryClient = useQueryClient();
  const pages = useInfiniteQuery(timelineOptions(runId));
  const { hasNextPage, isFetchingNextPage, fetchNextPage, error } = pages;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !error) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, error]);

  const events = useMemo(() => pages.data?.pages.flatMap((page) => page.events) ?? NO_EVENTS, [pages.data]);
  const lastId = events.at(-1)?.id ?? 0;
  const loaded = pages.isSuccess && !hasNextPage;

  // Once every page is in, only the tail is asked for, and only while the run is active.
  const changes = useQuery({
    ...trpc.runs.changes.queryOptions(loaded ? { runId, afterId: lastId } : skipToken),
    refetchInterval: (query) => (query.state.error || !isActive(query.state.data?.status ?? knownStatus ?? 'queued') ? false : LIVE_MS),
    staleTime: 0,
  });

  const fresh = changes.data;
  useEffect(() => {
    if (!fresh) return;
    const added = fresh.events.filter((event) => (event.id ?? 0) > lastId);
    if (added.length > 0) {
      queryClient.setQueryData(timelineOptions(runId).queryKey, (held: InfiniteData<TimelinePage, number | null> | undefined) => {
        if (!held) return held;
        const last = held.pages.at(-1)!;
        return { ...held, pages: [...held.pages.slice(0, -1), { ...last, events: [...last.events, ...added] }] };
      });
    }
    // New events or a new status mean the steps moved on.
    if (added.length > 0 || (knownStatus && fresh.status !== knownStatus)) {
      void queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ runId }) });
    }
  }, [fresh, lastId, knownStatus, queryClient, runId]);

  return { events, isPending: pages.isPending };
}
