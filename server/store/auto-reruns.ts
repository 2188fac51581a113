/**
 * Automatic reruns of failed runs (a flow's settings.retryFailedRuns): the next one's time
 * is written with the run's failure, in the same transaction; a worker later finds it due
 * through a partial index, and the rerun itself (run-service.ts) clears it, guarded by the
 * run still being failed, so two workers never rerun it twice.
 */
import type { Sql } from './db.ts';

export interface AutoRerunSchedule {
  /** When the rerun is due. */
  at: number;
  /** Which automatic rerun it will be (from 1), and how many the flow allows. */
  number: number;
  of: number;
}

/**
 * On a run's failure: schedules its next automatic rerun from `delaysMs`, or clears any
 * left from an earlier failure when none remains. Returns the schedule, if any.
 */
export async function scheduleAutoRerun(sql: Sql, runId: string, delaysMs: readonly number[], now: number): Promise<AutoRerunSchedule | null> {
  const row = await sql.get('SELECT auto_reruns FROM runs WHERE id = ?', [runId]);
  const done = Number(row?.auto_reruns ?? 0);
  const delay = delaysMs[done];
  const at = delay === undefined ? null : now + delay;
  await sql.run('UPDATE runs SET auto_rerun_at = ? WHERE id = ?', [at, runId]);
  return at === null ? null : { at, number: done + 1, of: delaysMs.length };
}

/** Failed runs whose automatic rerun is due, soonest first. */
export async function dueAutoReruns(sql: Sql, now: number, limit: number): Promise<{ id: string; versionId: string; number: number }[]> {
  const rows = await sql.all(
    `SELECT id, version_id, auto_reruns FROM runs WHERE status = 'failed' AND auto_rerun_at IS NOT NULL AND auto_rerun_at <= ? ORDER BY auto_rerun_at LIMIT ?`,
    [now, limit],
  );
  return rows.map((row) => ({ id: row.id as string, versionId: row.version_id as string, number: Number(row.auto_reruns) + 1 }));
}

/** Counts an automatic rerun and clears its time; in the transaction that moves the run to queued. */
export async function countAutoRerun(sql: Sql, runId: string): Promise<void> {
  await sql.run('UPDATE runs SET auto_rerun_at = NULL, auto_reruns = auto_reruns + 1 WHERE id = ?', [runId]);
}

/** Clears a pending automatic rerun (a person reran the run, or said not to). */
export async function cancelAutoRerun(sql: Sql, runId: string): Promise<boolean> {
  return (await sql.run(`UPDATE runs SET auto_rerun_at = NULL WHERE id = ? AND auto_rerun_at IS NOT NULL`, [runId])) === 1;
}

/** A failed run's pending automatic rerun, if it has one. */
export async function pendingAutoRerun(sql: Sql, runId: string): Promise<{ at: number; done: number } | null> {
  const row = await sql.get(`SELECT auto_rerun_at, auto_reruns FROM runs WHERE id = ? AND status = 'failed' AND auto_rerun_at IS NOT NULL`, [runId]);
  return row ? { at: Number(row.auto_rerun_at), done: Number(row.auto_reruns) } : null;
}
