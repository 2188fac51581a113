/**
 * Run numbers (#12) for run ids mentioned elsewhere (the run that did the work, the run a
 * replay repeats), looked up once each. A timeline may mention many runs; the first
 * few dozen are enough for what is on screen, the rest show a short id.
 */
import { useQueries } from '@tanstack/react-query';
import { trpc } from '../lib/trpc.ts';

const MAX_LOOKUPS = 24;

export function useRunNumbers(ids: readonly string[]): ReadonlyMap<string, number> {
  const unique = [...new Set(ids)].slice(0, MAX_LOOKUPS);
  return useQueries({
    queries: unique.map((id) => ({ ...trpc.runs.list.queryOptions({ search: id, limit: 1 }), staleTime: Infinity })),
    combine: toNumbers,
  });
}

// Module-level, so the map is rebuilt only when an answer changes.
function toNumbers(results: ReadonlyArray<{ data?: { runs: ReadonlyArray<{ id: string; seq: number }> } }>): ReadonlyMap<string, number> {
  const numbers = new Map<string, number>();
  for (const result of results) {
    const run = result.data?.runs[0];
    if (run) numbers.set(run.id, run.seq);
  }
  return numbers;
}
