/**
 * The write that ends most steps and runs on PostgreSQL, in one statement: the run's
 * fenced update with the journal's checkpoints and events (run-journal.ts uses it when
 * nothing else has to be written with them). Runs' endings that arrive together share
 * one statement (statement-batcher.ts), each still fenced on its own.
 */
import { batchRows, concatRows } from './batch.ts';
import type { Sql } from './db.ts';
import { END_LEASED_RUN, endingParams, RENEW_RUN_LEASE, type LeasedRunEnding } from './runs.ts';
import { statementBatcher } from './statement-batcher.ts';
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

/*
 * Many runs' endings in one statement: each run's update names its own fence, and a run's
 * checkpoints and events are written only when its own update found it still held. The
 * gate is a list the inserts filter their batch by, not a join, so each batch is read in
 * its order and each run's events get ids in the order its journal wrote them (batch.ts).
 */
const ENDINGS = batchRows('postgresql', [
  ['id', 'text'], ['fence', 'int'], ['status', 'text'], ['error', 'text'], ['wake_at', 'bigint'], ['finished_at', 'bigint'], ['failed_node', 'text'],
]);
const HELD_RUN = 'run_id = ANY (ARRAY(SELECT id FROM fenced))';
// The held runs' rows are taken in id order first, as every write of several runs takes
// them (runs.ts, above HEARTBEAT).
const END_MANY_WITH_WRITES = `WITH held AS MATERIALIZED (
    SELECT batch.* FROM ${ENDINGS} JOIN runs ON runs.id = batch.id AND runs.lease_fence = batch.fence AND runs.status = 'running'
    ORDER BY runs.id COLLATE "C" FOR UPDATE OF runs),
  fenced AS (
    UPDATE runs SET status = held.status, error = held.error, wake_at = held.wake_at, finished_at = held.finished_at,
      failed_node = held.failed_node, lease_owner = NULL, lease_until = NULL
    FROM held WHERE runs.id = held.id
    RETURNING runs.id),
  checkpointed AS (${upsertCheckpointsText('postgresql', HELD_RUN)}),
  logged AS (${insertEventsText('postgresql', HELD_RUN)})
  SELECT id FROM fenced`;

export type FencedChange = { ending: LeasedRunEnding } | { leaseUntil: number };

interface FencedEnding {
  run: { id: string; leaseFence: number };
  ending: LeasedRunEnding;
  checkpoints: readonly CheckpointRow[];
  events: readonly TimelineEvent[];
}

// An empty batch travels as JSON text: an empty array would reach PostgreSQL as `{}`.
const rowsParam = (rows: unknown[][]) => (rows.length > 0 ? rows : '[]');

async function writeOne(sql: Sql, run: { id: string; leaseFence: number }, change: FencedChange, checkpoints: readonly CheckpointRow[], events: readonly TimelineEvent[]): Promise<boolean> {
  const [text, params] = 'ending' in change
    ? [END_WITH_WRITES, endingParams(run, change.ending)]
    : [RENEW_WITH_WRITES, [change.leaseUntil, run.id, run.leaseFence]];
  const row = await sql.get<{ held: number | string }>(text, [...params, rowsParam(checkpoints.map(checkpointRow)), rowsParam(events.map(eventRow))]);
  return Number(row?.held) === 1;
}

async function writeMany(sql: Sql, endings: readonly FencedEnding[]): Promise<boolean[]> {
  const rows = endings.map(({ run, ending }) => {
    const [status, error, wakeAt, finishedAt, failedNode] = endingParams(run, ending);
    return [run.id, run.leaseFence, status, error, wakeAt, finishedAt, failedNode];
  });
  const held = await sql.all<{ id: string }>(END_MANY_WITH_WRITES, [
    rows,
    rowsParam(concatRows(endings.map((each) => each.checkpoints.map(checkpointRow)))),
    rowsParam(concatRows(endings.map((each) => each.events.map(eventRow)))),
  ]);
  const ids = new Set(held.map((row) => row.id));
  return endings.map((each) => ids.has(each.run.id));
}

/** One batcher per pool: endings written at the same moment by the worker's runs share a statement. */
const endingBatchers = new WeakMap<Sql, (ending: FencedEnding) => Promise<boolean>>();

export async function writeFencedRunChange(
  sql: Sql, run: { id: string; leaseFence: number }, change: FencedChange, checkpoints: readonly CheckpointRow[], events: readonly TimelineEvent[],
): Promise<boolean> {
  if (sql.dialect !== 'postgresql') throw new Error('writeFencedRunChange is for PostgreSQL; on SQLite write in a transaction');
  if (!('ending' in change)) return writeOne(sql, run, change, checkpoints, events);
  let batcher = endingBatchers.get(sql);
  if (!batcher) {
    batcher = statementBatcher<FencedEnding, boolean>({
      writeBatch: (endings) => writeMany(sql, endings),
      writeOne: (each) => writeOne(sql, each.run, { ending: each.ending }, each.checkpoints, each.events),
      // A run's journal writes one change at a time; the key only guards the rule that an update touches a row once.
      key: (each) => each.run.id,
    });
    endingBatchers.set(sql, batcher);
  }
  return batcher({ run, ending: change.ending, checkpoints, events });
}
