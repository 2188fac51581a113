/**
 * What is kept and for how long (ONCEFLOW_KEY_TTL, ONCEFLOW_RETENTION), under the runs
 * list: so nobody is surprised that a replay of old work acts again, or that old runs go.
 */
import { useQuery } from '@tanstack/react-query';
import { trpc } from '../lib/trpc.ts';
import { formatDay, plural } from './run-words.ts';

const UNITS: Record<string, string> = { ms: 'millisecond', s: 'second', m: 'minute', h: 'hour', d: 'day' };

/** `30d` → `30 days`; anything else as it was written. */
export function durationWords(setting: string): string {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(setting.trim());
  return match ? plural(Number(match[1]), UNITS[match[2]!]!) : setting;
}

export function KeepingLine() {
  const keeping = useQuery({ ...trpc.system.keeping.queryOptions(), staleTime: 60_000 });
  if (!keeping.data) return null;
  const { keyTtl, retention, oldestKeptRun } = keeping.data;
  const oldest = oldestKeptRun ? ` The oldest kept run is #${oldestKeptRun.seq}, from ${formatDay(oldestKeptRun.createdAt)}.` : '';
  return (
    <p className="keeping-line" data-testid="runs.keeping">
      Keys are kept for {durationWords(keyTtl)} after their work is done; after that a replay acts again, and its preview says so.{' '}
      {retention ? `Ended runs are deleted after ${durationWords(retention)}.` : 'Runs are kept until you set a retention (ONCEFLOW_RETENTION).'}
      {oldest}
    </p>
  );
}
