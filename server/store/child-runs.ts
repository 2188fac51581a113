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
 * Wakes the runs waiting for a child that just ended: its parent, and any other run whose
 * key found the child (a replay). Runs after the child's own row was written, so it holds
 * that row's lock: a run parking on the child (which takes the row first, `holdChildren`)
 * either parked before this, or sees the child ended.
 */
export async function wakeWaiters(sql: Sql, parentRunId: string, childRunId: string, now: number): Promise<void> {
  await sql.run(`UPDATE runs SET wake_at = ? WHERE status = 'waiting' AND (id = ? OR waits_for_run_id = ?)`, [now, parentRunId, childRunId]);
}

/**
 * Part of a run's parking on its children: takes each child's row, in id order (on
 * PostgreSQL, its lock; a SQLite writer is alone anyway), then notes on the run what it
 * waits for, and says whether a child already ended, in which case the run wakes at once.
 * Children first, the run's own row last: the order a child's end takes them in too.
 */
export async function holdChildren(sql: Sql, runId: string, childRunIds: readonly string[]): Promise<boolean> {
  const lock = sql.dialect === 'postgresql' ? ' FOR UPDATE' : '';
  let ended = false;
  for (const childRunId of [...new Set(childRunIds)].sort()) {
    const row = await sql.get<{ status: string }>(`SELECT status FROM runs WHERE id = ?${lock}`, [childRunId]);
    if (row !== undefined && (CHILD_END_STATUSES as readonly string[]).includes(row.status)) ended = true;
  }
  // One column: a run waiting for several children (items of a For each) started them
  // itself, and is woken as their parent.
  await sql.run(`UPDATE runs SET waits_for_run_id = ? WHERE id = ?`, [childRunIds[0] ?? null, runId]);
  return ended;
}

/** The children a run's steps started, for the run page (each step's newest first). */
export async function childRunsOf(sql: Sql, parentRunId: string): Promise<RunRow[]> {
  const rows = await sql.all(`SELECT ${RUN_COLUMNS} FROM runs WHERE parent_run_id = ? ORDER BY seq DESC`, [parentRunId]);
  return rows.map(toRun);
}
