/**
 * The recent events of a flow, for the publish guard: what came in (webhook deliveries,
 * schedule fires, runs started by hand), newest first and bounded, with the outputs of
 * the steps named, so keys built from step outputs can be rendered as they were.
 * Replays are left out: they repeat an event already counted; so are test runs, whose keys
 * live in a test scope and never meet a live one.
 */
import { isOneOf } from './batch.ts';
import type { Sql } from './db.ts';
import { CHECKPOINT_COLUMNS, RUN_COLUMNS, toCheckpoint, toRun } from './rows.ts';
import type { CheckpointRow, RunRow } from './types.ts';

export async function recentFlowEvents(sql: Sql, flowId: string, limit: number): Promise<RunRow[]> {
  const rows = await sql.all(
    `SELECT ${RUN_COLUMNS} FROM runs WHERE flow_id = ? AND replay_of IS NULL AND test_scope IS NULL ORDER BY seq DESC LIMIT ?`,
    [flowId, limit],
  );
  return rows.map(toRun);
}

/** Finished outputs of the given steps in the given runs (one statement per list). */
export async function stepOutputs(sql: Sql, runIds: string[], nodeIds: string[]): Promise<CheckpointRow[]> {
  if (runIds.length === 0 || nodeIds.length === 0) return [];
  const rows = await sql.all(
    `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints
     WHERE ${isOneOf(sql.dialect, 'run_id')} AND ${isOneOf(sql.dialect, 'node_id')} AND status = 'succeeded'`,
    [runIds, nodeIds],
  );
  return rows.map(toCheckpoint);
}
