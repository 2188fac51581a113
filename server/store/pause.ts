/**
 * Pausing a flow. The flag lives on the flow row (paused_at, paused_by); a paused flow's
 * new runs are created `held` (runs.ts, newRunState) and the lease never picks held
 * runs, so nothing is executed until Resume turns them back into queued runs, in the
 * order they arrived (their numbers).
 */
import { isOneOf } from './batch.ts';
import type { Sql } from './db.ts';
import { updateRunsInIdOrder } from './runs.ts';
import { insertEvents } from './timeline.ts';
import type { TimelineEvent } from './types.ts';

export interface FlowPause {
  pausedAt: number;
  pausedBy: string;
}

/** The flow's pause, or null when it runs normally (or does not exist). One primary-key read. */
export async function readFlowPause(sql: Sql, flowId: string): Promise<FlowPause | null> {
  const row = await sql.get<{ paused_at: number | null; paused_by: string | null }>(`SELECT paused_at, paused_by FROM flows WHERE id = ?`, [flowId]);
  return row?.paused_at == null ? null : { pausedAt: Number(row.paused_at), pausedBy: row.paused_by ?? 'unknown' };
}

/**
 * Pauses the flow and holds its queued runs (with a `run.held` event each saying who).
 * Returns how many runs it held, or null when the flow does not exist; pausing a paused
 * flow changes nothing. Run it in a transaction.
 */
export async function pauseFlow(sql: Sql, flowId: string, by: string, now: number): Promise<{ held: number; alreadyPaused: boolean } | null> {
  // One conditional update decides: two people pausing at once pause the flow once.
  const changed = await sql.run(`UPDATE flows SET paused_at = ?, paused_by = ? WHERE id = ? AND paused_at IS NULL`, [now, by, flowId]);
  if (changed === 0) {
    const exists = await sql.get(`SELECT 1 AS found FROM flows WHERE id = ?`, [flowId]);
    return exists ? { held: 0, alreadyPaused: true } : null;
  }
  const hold = updateRunsInIdOrder(sql.dialect, `status = 'held'`, `flow_id = ? AND status = 'queued'`, 'id, attempt');
  const held = await sql.all<{ id: string; attempt: number }>(hold.text, hold.params([], [flowId]));
  await insertEvents(sql, held.map((run): TimelineEvent => ({
    runId: run.id, type: 'run.held', nodeId: null, attempt: Number(run.attempt), data: { by, reason: 'paused' }, createdAt: now,
  })));
  return { held: held.length, alreadyPaused: false };
}

export interface ResumeResult {
  /** Runs queued again, in arrival order. */
  released: number;
  /** Held schedule fires dropped at the person's request. */
  dropped: number;
}

/**
 * Resumes the flow: held runs become queued in one statement (the lease takes queued runs
 * by number, so they run in arrival order), each with a `run.released` event. With
 * `dropScheduleFires`, held runs a schedule started are cancelled instead: a fire missed
 * during the pause is usually not worth doing late. Null when the flow does not exist.
 * Run it in a transaction.
 */
export async function resumeFlow(
  sql: Sql,
  flowId: string,
  options: { by: string; now: number; dropScheduleFires: boolean },
): Promise<ResumeResult | null> {
  const changed = await sql.run(`UPDATE flows SET paused_at = NULL, paused_by = NULL WHERE id = ?`, [flowId]);
  if (changed === 0) return null;
  const { by, now } = options;
  const drop = updateRunsInIdOrder(sql.dialect, `status = 'cancelled', finished_at = ?`, `flow_id = ? AND status = 'held' AND trigger_kind = 'schedule'`, 'id, attempt');
  const dropped = options.dropScheduleFires ? await sql.all<{ id: string; attempt: number }>(drop.text, drop.params([now], [flowId])) : [];
  const release = updateRunsInIdOrder(sql.dialect, `status = 'queued'`, `flow_id = ? AND status = 'held'`, 'id, attempt, seq');
  const released = await sql.all<{ id: string; attempt: number; seq: number }>(release.text, release.params([], [flowId]));
  released.sort((a, b) => Number(a.seq) - Number(b.seq));
  await insertEvents(sql, [
    ...dropped.map((run): TimelineEvent => ({
      runId: run.id, type: 'run.cancelled', nodeId: null, attempt: Number(run.attempt), data: { by, reason: 'missed schedule fire dropped on resume' }, createdAt: now,
    })),
    ...released.map((run): TimelineEvent => ({
      runId: run.id, type: 'run.released', nodeId: null, attempt: Number(run.attempt), data: { by }, createdAt: now,
    })),
  ]);
  return { released: released.length, dropped: dropped.length };
}

export interface HeldCount {
  held: number;
  /** Of those, runs a schedule fired (Resume may drop them). */
  scheduleFires: number;
}

const COUNT_HELD = `SELECT flow_id, COUNT(*) AS held, SUM(CASE WHEN trigger_kind = 'schedule' THEN 1 ELSE 0 END) AS schedule_fires
  FROM runs WHERE status = 'held'`;

/** How many runs wait in each of these flows (every flow with held runs when `flowIds` is omitted). */
export async function countHeldRuns(sql: Sql, flowIds?: readonly string[]): Promise<Map<string, HeldCount>> {
  type Row = { flow_id: string; held: number; schedule_fires: number | null };
  const rows = flowIds === undefined
    ? await sql.all<Row>(`${COUNT_HELD} GROUP BY flow_id`)
    : flowIds.length === 0
      ? []
      : await sql.all<Row>(`${COUNT_HELD} AND ${isOneOf(sql.dialect, 'flow_id')} GROUP BY flow_id`, [flowIds]);
  return new Map(rows.map((row) => [row.flow_id, { held: Number(row.held), scheduleFires: Number(row.schedule_fires ?? 0) }]));
}

/** Every paused flow with who paused it and since when. */
export async function listPausedFlows(sql: Sql): Promise<Map<string, FlowPause>> {
  const rows = await sql.all<{ id: string; paused_at: number; paused_by: string | null }>(`SELECT id, paused_at, paused_by FROM flows WHERE paused_at IS NOT NULL`);
  return new Map(rows.map((row) => [row.id, { pausedAt: Number(row.paused_at), pausedBy: row.paused_by ?? 'unknown' }]));
}
