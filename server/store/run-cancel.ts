/**
 * What cancelling a run needs to read: which of its steps are acting (their claim is won
 * and in progress), whether a run was cancelled, by whom and with which parent, and the
 * status of runs a worker no longer holds.
 */
import type { Sql } from './db.ts';
import { parseJson } from './rows.ts';
import type { RunStatus } from './types.ts';

/** The steps of a run whose claim it holds in progress: they are acting right now. */
export async function actingSteps(sql: Sql, runId: string): Promise<string[]> {
  const rows = await sql.all<{ node_id: string }>(
    `SELECT owner_node_id AS node_id FROM claims WHERE owner_run_id = ? AND status = 'in_progress' ORDER BY owner_node_id`,
    [runId],
  );
  return rows.map((row) => row.node_id);
}

/** Who cancelled a run and, for a child cancelled with its parent, that parent. */
export interface CancelReason {
  by: string;
  parentRunId?: string;
  parentSeq?: number;
}

/** Why the run was cancelled, when it is cancelled; undefined when it is not. */
export async function cancelReason(sql: Sql, runId: string): Promise<CancelReason | undefined> {
  const row = await sql.get<{ data: unknown }>(
    `SELECT e.data AS data FROM runs r JOIN timeline_events e ON e.run_id = r.id AND e.type = 'run.cancelled'
     WHERE r.id = ? AND r.status = 'cancelled' ORDER BY e.id LIMIT 1`,
    [runId],
  );
  if (!row) return undefined;
  const data = parseJson(row.data) as { by?: unknown; parentRunId?: unknown; parentSeq?: unknown } | null;
  return {
    by: typeof data?.by === 'string' ? data.by : 'Someone',
    ...(typeof data?.parentRunId === 'string' ? { parentRunId: data.parentRunId } : {}),
    ...(typeof data?.parentSeq === 'number' ? { parentSeq: data.parentSeq } : {}),
  };
}

/** The status of a run and whether this lease fence still holds it. */
export async function leaseState(sql: Sql, run: { id: string; leaseFence: number }): Promise<{ status: RunStatus; held: boolean } | undefined> {
  const row = await sql.get<{ status: RunStatus; lease_fence: number }>(`SELECT status, lease_fence FROM runs WHERE id = ?`, [run.id]);
  if (!row) return undefined;
  return { status: row.status, held: row.status === 'running' && Number(row.lease_fence) === run.leaseFence };
}

/** The ids among `ids` of runs that are cancelled. */
export async function cancelledAmong(sql: Sql, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const id of ids) {
    const row = await sql.get<{ status: string }>(`SELECT status FROM runs WHERE id = ?`, [id]);
    if (row?.status === 'cancelled') found.add(id);
  }
  return found;
}
