/** Timeline events and checkpoints: written in batches, inside the caller's transaction. */
import type { CheckpointRow, TimelineEvent } from '../engine/types.ts';
import type { Sql } from './db.ts';
import { toCheckpoint, toEvent, toJson } from './rows.ts';

const rowsSql = (count: number, width: number) =>
  Array.from({ length: count }, () => `(${Array.from({ length: width }, () => '?').join(', ')})`).join(', ');

export async function insertEvents(sql: Sql, events: readonly TimelineEvent[]): Promise<void> {
  if (events.length === 0) return;
  const params: unknown[] = [];
  for (const event of events) {
    params.push(event.runId, event.type, event.nodeId, event.attempt, toJson(event.data), event.createdAt);
  }
  await sql.run(
    `INSERT INTO timeline_events (run_id, type, node_id, attempt, data, created_at) VALUES ${rowsSql(events.length, 6)}`,
    params,
  );
}

/**
 * Writes checkpoints. A settled checkpoint (succeeded, skipped) is never replaced: a
 * stale writer's row changes nothing. A pending one (waiting, uncertain, failed) is.
 */
export async function upsertCheckpoints(sql: Sql, checkpoints: readonly CheckpointRow[]): Promise<void> {
  if (checkpoints.length === 0) return;
  const params: unknown[] = [];
  for (const checkpoint of checkpoints) {
    params.push(checkpoint.runId, checkpoint.nodeId, checkpoint.status, toJson(checkpoint.output), checkpoint.keyScope, checkpoint.key, checkpoint.attempt, checkpoint.createdAt);
  }
  await sql.run(
    `INSERT INTO checkpoints (run_id, node_id, status, output, key_scope, key, attempt, created_at) VALUES ${rowsSql(checkpoints.length, 8)}
     ON CONFLICT (run_id, node_id) DO UPDATE SET status = excluded.status, output = excluded.output,
       key_scope = excluded.key_scope, key = excluded.key, attempt = excluded.attempt, created_at = excluded.created_at
     WHERE checkpoints.status NOT IN ('succeeded', 'skipped')`,
    params,
  );
}

export async function loadCheckpoints(sql: Sql, runId: string): Promise<CheckpointRow[]> {
  const rows = await sql.all(`SELECT run_id, node_id, status, output, key_scope, key, attempt, created_at FROM checkpoints WHERE run_id = ?`, [runId]);
  return rows.map(toCheckpoint);
}

export async function deleteCheckpoint(sql: Sql, runId: string, nodeId: string): Promise<void> {
  await sql.run(`DELETE FROM checkpoints WHERE run_id = ? AND node_id = ?`, [runId, nodeId]);
}

export async function listEvents(sql: Sql, runId: string, afterId = 0, limit = 100_000): Promise<TimelineEvent[]> {
  const rows = await sql.all(
    `SELECT id, run_id, type, node_id, attempt, data, created_at FROM timeline_events WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?`,
    [runId, afterId, limit],
  );
  return rows.map(toEvent);
}
