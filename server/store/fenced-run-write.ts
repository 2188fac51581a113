/**
 * The write that ends most steps and runs on PostgreSQL, in one statement: the run's
 * fenced update with the journal's checkpoints and events (run-journal.ts uses it when
 * nothing else has to be written with them).
 */
import type { Sql } from './db.ts';
import { END_LEASED_RUN, endingParams, RENEW_RUN_LEASE, type LeasedRunEnding } from './runs.ts';
import { checkpointRow, eventRow, insertEventsText, upsertCheckpointsText } from './timeline.ts';
import type { CheckpointRow, TimelineEvent } from './types.ts';

/**
 * PostgreSQL: a run's fenced update (its ending, or a renewed lease) with the journal's
 * checkpoints and events in ONE statement, where a transaction of three would cost five
 * round trips. The inserts happen only when the update found the run still held under
 * this fence; returns whether it did (false: nothing was written).
 */
const FENCED_WRITE = (update: string) => `WITH fenced AS (${update} RETURNING id),
  checkpointed AS (${upsertCheckpointsText('postgresql', 'EXISTS (SELECT 1 FROM fenced)')}),
  logged AS (${insertEventsText('postgresql', 'EXISTS (SELECT 1 FROM fenced)')})
  SELECT COUNT(*) AS held FROM fenced`;
const END_WITH_WRITES = FENCED_WRITE(END_LEASED_RUN);
const RENEW_WITH_WRITES = FENCED_WRITE(RENEW_RUN_LEASE);

export type FencedChange = { ending: LeasedRunEnding } | { leaseUntil: number };

export async function writeFencedRunChange(
  sql: Sql, run: { id: string; leaseFence: number }, change: FencedChange, checkpoints: readonly CheckpointRow[], events: readonly TimelineEvent[],
): Promise<boolean> {
  if (sql.dialect !== 'postgresql') throw new Error('writeFencedRunChange is for PostgreSQL; on SQLite write in a transaction');
  const [text, params] = 'ending' in change
    ? [END_WITH_WRITES, endingParams(run, change.ending)]
    : [RENEW_WITH_WRITES, [change.leaseUntil, run.id, run.leaseFence]];
  // An empty batch travels as JSON text: an empty array would reach PostgreSQL as `{}`.
  const batch = (rows: unknown[][]) => (rows.length > 0 ? rows : '[]');
  const row = await sql.get<{ held: number | string }>(text, [...params, batch(checkpoints.map(checkpointRow)), batch(events.map(eventRow))]);
  return Number(row?.held) === 1;
}
