/**
 * A run's timeline: paged in through `runs.timeline` (the page's only reader of events),
 * then kept live by `runs.watch`, which pushes the events after the last one held and the
 * run's status as they change. The first page shows while the rest arrive, so a
 * 10,000-event run opens at the speed of its first page, and a live update is only what
 * changed.
 */
import { skipToken, useInfiniteQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { trpc } from '../lib/trpc.ts';
import type { RunDetail, RunStatus, TimelineEntry, TimelinePage } from './run-types.ts';
import { isActive } from './run-words.ts';

const PAGE_SIZE = 2000;
const NO_EVENTS: TimelineEntry[] = [];

const timelineOptions = (runId: string) =>
  trpc.runs.timeline.infiniteQueryOptions(
    { runId, limit: PAGE_SIZE },
    { initialCursor: 0, getNextPageParam: (page) => page.nextAfterId ?? undefined, staleTime: Infinity, structuralSharing: false },
  );

/**
 * After a person's action the run moves on: look at its status and steps again, then at
 * the events written since. An active run is watched anew; one that already settled again
 * (a decision that finished it) is not watched, so its last events are read here. The
 * status is read first, so a settled run's events are all written by then.
 */
export async function refreshRun(queryClient: QueryClient, runId: string) {
  await queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ runId }) });
  await readTail(queryClient, runId);
}

/** Reads every event written after the last one held. */
async function readTail(queryClient: QueryClient, runId: string) {
  const held = queryClient.getQueryData(timelineOptions(runId).queryKey);
  if (!held) return;
  let afterId: number | null = held.pages.flatMap((page) => page.events).at(-1)?.id ?? 0;
  while (afterId !== null) {
    const tail: TimelinePage = await queryClient.fetchQuery({ ...trpc.runs.timeline.queryOptions({ runId, afterId, limit: PAGE_SIZE }), staleTime: 0 });
    appendEvents(queryClient, runId, tail.events);
    afterId = tail.nextAfterId ?? null;
  }
}

/** Adds pushed events to the last page, skipping any already held, so nothing shows twice. */
function appendEvents(queryClient: QueryClient, runId: string, events: TimelineEntry[]) {
  queryClient.setQueryData(timelineOptions(runId).queryKey, (held: InfiniteData<TimelinePage, number | null> | undefined) => {
    if (!held) return held;
    const last = held.pages.at(-1)!;
    const heldId = last.events.at(-1)?.id ?? 0;
    const added = events.filter((event) => (event.id ?? 0) > heldId);
    if (added.length === 0) return held;
    return { ...held, pages: [...held.pages.slice(0, -1), { ...last, events: [...last.events, ...added] }] };
  });
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

  // Once every page is in, the run is watched while it is active. The watch starts after
  // the last event held when it began; later events arrive through it, so the start stays put.
  const live = loaded && isActive(knownStatus ?? 'queued');
  const [watchFrom, setWatchFrom] = useState(lastId);
  if (!live && watchFrom !== lastId) setWatchFrom(lastId);

  // The status can settle (read again after a step's event) before the watch hands over
  // the run's last events; the watch then ends, so those events are read here.
  const wasLive = useRef(live);
  useEffect(() => {
    if (wasLive.current && !live) void readTail(queryClient, runId);
    wasLive.current = live;
  }, [live, queryClient, runId]);

  useSubscription(trpc.runs.watch.subscriptionOptions(live ? { runId, lastEventId: String(watchFrom) } : skipToken, {
    onData: ({ data: change }) => {
      if (change.events.length > 0) appendEvents(queryClient, runId, change.events);
      // The steps only move with a step's event or a new status; a repeated delivery writes
      // no event, and comes with the run's details when its count moves.
      const shown = queryClient.getQueryData<RunDetail>(trpc.runs.get.queryKey({ runId }));
      const moved = change.status !== shown?.run.status || change.repeatsCounted !== shown.repeatsCounted;
      if (moved || change.events.some((event) => event.type.startsWith('step.'))) {
        void queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ runId }) });
      }
    },
  }));

  return { events, isPending: pages.isPending };
}
