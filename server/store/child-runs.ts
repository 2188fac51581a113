/**
 * Runs started by a Run flow step (engine/steps/flow-run.ts): the claim that records the
 * child, the wake-up a parent gets when its child ends, and the links the run page shows.
 */
import type { Sql } from './db.ts';
import { RUN_COLUMNS, toJson, toRun } from './rows.ts';
import type { RunRow } from './types.ts';

/** Statuses a run does not leave by itself: a parent waiting on it is woken. */
export const CHILD_END_STATUSES = ['succeeded', 'failed', 'needs_review', 'cancelled'] as const;

/**
 * Writes what the claim of a Run flow step holds while its child runs: the child's id
 * (and the parent attempt that started it). Part of the transaction that won the claim
 * and inserted the child, so a claim never exists without its child.
 */
export async function recordClaimChild(sql: Sql, claim: { scope: string; key: string; fence: number }, output: unknown): Promise<void> {
  await sql.run(`UPDATE claims SET output = ? WHERE scope = ? AND key = ? AND fence = ?`, [toJson(output), claim.scope, claim.key, claim.fence]);
}

/**
 * Wakes a parent that waits for its child. It always takes the parent's row (the CASE
 * keeps a running parent's wake time), so on PostgreSQL a parent parking at the same
 * moment either sees this child ended or is parked before this statement runs.
 */
export async function wakeParent(sql: Sql, parentRunId: string, now: number): Promise<void> {
  await sql.run(`UPDATE runs SET wake_at = CASE WHEN status = 'waiting' THEN ? ELSE wake_at END WHERE id = ?`, [now, parentRunId]);
}

/**
 * Wakes `runId` at once when the child it just parked on has already ended: written after
 * the run's own parking in one transaction, so an end committed in between is not missed.
 */
export async function wakeIfChildEnded(sql: Sql, runId: string, childRunId: string, now: number): Promise<void> {
  await sql.run(
    `UPDATE runs SET wake_at = ? WHERE id = ? AND status = 'waiting'
       AND EXISTS (SELECT 1 FROM runs c WHERE c.id = ? AND c.status IN ('succeeded', 'failed', 'needs_review', 'cancelled'))`,
    [now, runId, childRunId],
  );
}

/** The children a run's steps started, for the run page (each step's newest first). */
export async function childRunsOf(sql: Sql, parentRunId: string): Promise<RunRow[]> {
  const rows = await sql.all(`SELECT ${RUN_COLUMNS} FROM runs WHERE parent_run_id = ? ORDER BY seq DESC`, [parentRunId]);
  return rows.map(toRun);
}
