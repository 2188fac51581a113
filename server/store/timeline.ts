/** Timeline events and checkpoints: written in batches, inside the caller's transaction. */
import { batchRows, isOneOf, perDialect, rowsInsert, type BatchColumn } from './batch.ts';
import type { Dialect, Sql } from './db.ts';
import { CHECKPOINT_COLUMNS, EVENT_COLUMNS, toCheckpoint, toEvent, toJson } from './rows.ts';
import type { CheckpointRow, TimelineEvent } from './types.ts';

const EVENT_BATCH: readonly BatchColumn[] = [
  ['run_id', 'text'], ['type', 'text'], ['node_id', 'text'], ['attempt', 'int'], ['data', 'text'], ['created_at', 'bigint'],
];

/** Inserts a batch of events; `only` gates the whole batch (a condition on other CTEs). */
export const insertEventsText = (dialect: Dialect, only = '') =>
  `INSERT INTO timeline_events (run_id, type, node_id, attempt, data, created_at)
   SELECT run_id, type, node_id, attempt, data, created_at FROM ${batchRows(dialect, EVENT_BATCH)}${only ? ` WHERE ${only}` : ''}`;

// Written in batch order (see batchRows): an event's id is its place on the timeline.
const INSERT_EVENTS = perDialect((dialect) => insertEventsText(dialect));

export const eventRow = (event: TimelineEvent) => [event.runId, event.type, event.nodeId, event.attempt, toJson(event.data), event.createdAt];

const writeEvents = rowsInsert(INSERT_EVENTS, 'INSERT INTO timeline_events (run_id, type, node_id, attempt, data, created_at)', EVENT_BATCH.length);

export async function insertEvents(sql: Sql, events: readonly TimelineEvent[]): Promise<void> {
  await writeEvents(sql, events.map(eventRow));
}

/*
 * A settled checkpoint (succeeded, skipped) is never replaced: a stale writer's row
 * changes nothing. A pending one (waiting, uncertain, failed) is. SQLite needs the
 * `WHERE true` to read the ON CONFLICT clause after a SELECT.
 */
const CHECKPOINT_BATCH: readonly BatchColumn[] = [
  ['run_id', 'text'], ['node_id', 'text'], ['status', 'text'], ['output', 'text'], ['key_scope', 'text'], ['key', 'text'],
  ['attempt', 'int'], ['created_at', 'bigint'],
];

const CHECKPOINT_CONFLICT = `ON CONFLICT (run_id, node_id) DO UPDATE SET status = excluded.status, output = excluded.output,
     key_scope = excluded.key_scope, key = excluded.key, attempt = excluded.attempt, created_at = excluded.created_at
   WHERE checkpoints.status NOT IN ('succeeded', 'skipped')`;
const CHECKPOINTS_INTO = 'INSERT INTO checkpoints (run_id, node_id, status, output, key_scope, key, attempt, created_at)';

export const upsertCheckpointsText = (dialect: Dialect, only = 'true') =>
  `${CHECKPOINTS_INTO}
   SELECT run_id, node_id, status, output, key_scope, key, attempt, created_at FROM ${batchRows(dialect, CHECKPOINT_BATCH)} WHERE ${only}
   ${CHECKPOINT_CONFLICT}`;

const UPSERT_CHECKPOINTS = perDialect((dialect) => upsertCheckpointsText(dialect));

export const checkpointRow = (checkpoint: CheckpointRow) => [
  checkpoint.runId, checkpoint.nodeId, checkpoint.status, toJson(checkpoint.output), checkpoint.keyScope, checkpoint.key, checkpoint.attempt, checkpoint.createdAt,
];

const writeCheckpoints = rowsInsert(UPSERT_CHECKPOINTS, CHECKPOINTS_INTO, CHECKPOINT_BATCH.length, ` ${CHECKPOINT_CONFLICT}`);

export async function upsertCheckpoints(sql: Sql, checkpoints: readonly CheckpointRow[]): Promise<void> {
  await writeCheckpoints(sql, checkpoints.map(checkpointRow));
}

// Both batches in one round trip: the checkpoints' upsert rides along as a CTE.
const WRITE_BOTH_POSTGRES = `WITH checkpointed AS (${UPSERT_CHECKPOINTS.postgresql}) ${INSERT_EVENTS.postgresql}`;

/**
 * Writes a journal's checkpoints and events: one statement on PostgreSQL, where each
 * costs a round trip; two on SQLite (no data-modifying CTEs there, and a statement inside
 * a transaction costs microseconds).
 */
export async function writeCheckpointsAndEvents(sql: Sql, checkpoints: readonly CheckpointRow[], events: readonly TimelineEvent[]): Promise<void> {
  if (sql.dialect === 'postgresql' && checkpoints.length > 0 && events.length > 0) {
    await sql.run(WRITE_BOTH_POSTGRES, [checkpoints.map(checkpointRow), events.map(eventRow)]);
    return;
  }
  await upsertCheckpoints(sql, checkpoints);
  await insertEvents(sql, events);
}

// Written out once, as every statement on a hot path is (db.ts, `prepare`).
const CHECKPOINTS_OF_RUN = `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE run_id = ?`;

export async function loadCheckpoints(sql: Sql, runId: string): Promise<CheckpointRow[]> {
  const rows = await sql.all(CHECKPOINTS_OF_RUN, [runId]);
  return rows.map(toCheckpoint);
}

const CHECKPOINTS_OF_STEPS = perDialect((dialect) => `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE run_id = ? AND ${isOneOf(dialect, 'node_id')}`);

/** Only the named steps' checkpoints: one page of a long loop's items without reading all of them. */
export async function loadCheckpointsOf(sql: Sql, runId: string, nodeIds: readonly string[]): Promise<CheckpointRow[]> {
  if (nodeIds.length === 0) return [];
  const rows = await sql.all(CHECKPOINTS_OF_STEPS[sql.dialect], [runId, nodeIds]);
  return rows.map(toCheckpoint);
}

export async function deleteCheckpoint(sql: Sql, runId: string, nodeId: string): Promise<void> {
  await sql.run(`DELETE FROM checkpoints WHERE run_id = ? AND node_id = ?`, [runId, nodeId]);
}

export async function listEvents(sql: Sql, runId: string, afterId = 0, limit = 100_000): Promise<TimelineEvent[]> {
  const rows = await sql.all(
    `SELECT ${EVENT_COLUMNS} FROM timeline_events WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?`,
    [runId, afterId, limit],
  );
  return rows.map(toEvent);
}
