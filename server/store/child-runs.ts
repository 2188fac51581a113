/**
 * Runs started by a Run flow step (engine/steps/flow-run.ts): the claim that records the
 * child, the wake-up a parent gets when its child ends, and the links the run page shows.
 */
import { perDialect } from './batch.ts';
import type { Sql } from './db.ts';
import { parseJson, RUN_COLUMNS, toJson, toRun } from './rows.ts';
import { updateRunsInIdOrder } from './runs.ts';
import type { RunRow, RunStatus } from './types.ts';

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
  const wake = WAKE_WAITERS[sql.dialect];
  await sql.run(wake.text, wake.params([now], [parentRunId, childRunId]));
}

const WAITERS = `status = 'waiting' AND (id = ? OR waits_for_run_id = ?)`;
// On PostgreSQL the waiters' rows are taken in id order, as every write of several runs takes them (runs.ts, above HEARTBEAT).
const WAKE_WAITERS = perDialect((dialect) => updateRunsInIdOrder(dialect, 'wake_at = ?', WAITERS));

/** A child run a parking run waits for, and the status it last saw the child in. */
export interface ChildWait {
  runId: string;
  seenStatus: string;
}

/**
 * Part of a run's parking on its children: takes each child's row (on PostgreSQL, its
 * lock; a SQLite writer is alone anyway), then notes on the run what it waits for, and
 * says whether a child ended since the run looked at it, in which case the run wakes at
 * once. A child still in the state the run saw (in review, or failed and about to be
 * tried again) does not wake it: its next end will, through `wakeWaiters`.
 * On PostgreSQL the run's own row is taken with its children's, all in id order, the
 * order every write of several runs takes them in (runs.ts, above HEARTBEAT). A child's
 * end, holding the child's row, waits for a waiter's row only once that waiter's parking
 * has committed (before, the row is not yet `waiting` to it), so it never waits here.
 */
export async function holdChildren(sql: Sql, runId: string, children: readonly ChildWait[]): Promise<boolean> {
  const postgres = sql.dialect === 'postgresql';
  const seen = new Map<string, Set<string>>();
  for (const child of children) seen.set(child.runId, (seen.get(child.runId) ?? new Set()).add(child.seenStatus));
  const rows = postgres ? [...new Set([runId, ...seen.keys()])] : [...seen.keys()];
  let ended = false;
  for (const id of rows.sort()) {
    const row = await sql.get<{ status: string }>(`SELECT status FROM runs WHERE id = ?${postgres ? ' FOR UPDATE' : ''}`, [id]);
    const seenStatuses = seen.get(id);
    if (row !== undefined && seenStatuses && (CHILD_END_STATUSES as readonly string[]).includes(row.status) && !seenStatuses.has(row.status)) ended = true;
  }
  // One column: a run waiting for several children (items of a For each) started them
  // itself, and is woken as their parent.
  await sql.run(`UPDATE runs SET waits_for_run_id = ? WHERE id = ?`, [children[0]?.runId ?? null, runId]);
  return ended;
}

/** The children a run's steps started, for the run page (each step's newest first). */
export async function childRunsOf(sql: Sql, parentRunId: string): Promise<RunRow[]> {
  const rows = await sql.all(`SELECT ${RUN_COLUMNS} FROM runs WHERE parent_run_id = ? ORDER BY seq DESC`, [parentRunId]);
  return rows.map(toRun);
}

/**
 * A child that has not ended may still act: a cancel of the run that started it cancels it
 * too. A failed child counts while its flow will rerun it by itself (settings.retryFailedRuns).
 */
const OPEN_CHILD = `(status IN ('queued', 'held', 'running', 'waiting', 'needs_review') OR (status = 'failed' AND auto_rerun_at IS NOT NULL))`;

/** The children a run started that have not ended, oldest first. */
export async function openChildrenOf(sql: Sql, parentRunId: string): Promise<RunRow[]> {
  const rows = await sql.all(`SELECT ${RUN_COLUMNS} FROM runs WHERE parent_run_id = ? AND ${OPEN_CHILD} ORDER BY seq`, [parentRunId]);
  return rows.map(toRun);
}

/**
 * In the transaction that cancels a child with its parent: takes the child's row first (on
 * PostgreSQL, its lock; the order a child's end takes rows in, so no deadlock) and says the
 * status it is cancelled from. Undefined when it ended meanwhile, or when a run that was not
 * cancelled and has not ended waits for it too (a replay whose key found it): that run still
 * needs its result.
 */
export async function openChildStatus(sql: Sql, childRunId: string): Promise<RunStatus | undefined> {
  const lock = sql.dialect === 'postgresql' ? ' FOR UPDATE' : '';
  const row = await sql.get<{ status: RunStatus }>(`SELECT status FROM runs WHERE id = ? AND ${OPEN_CHILD}${lock}`, [childRunId]);
  if (!row) return undefined;
  // A run parked on a child that needs review is woken now and then to look again, so it
  // may be running or queued just now; `waits_for_run_id` keeps naming the child meanwhile.
  const other = await sql.get(`SELECT id FROM runs WHERE waits_for_run_id = ? AND status IN ('queued', 'held', 'running', 'waiting') LIMIT 1`, [childRunId]);
  return other ? undefined : row.status;
}

/**
 * Releases the claims by which a cancelled run's Run flow steps held a child cancelled with
 * it (`failed`, as a side effect that did not happen): a later run with the key, a replay,
 * starts a new child, whose keyed steps the cancelled one finished come back as duplicates,
 * instead of failing on the cancelled child for as long as the key lives.
 */
export async function releaseCancelledChild(sql: Sql, parentRunId: string, childRunId: string, now: number): Promise<void> {
  const claims = await sql.all<{ scope: string; key: string; fence: number; output: unknown }>(
    `SELECT scope, key, fence, output FROM claims WHERE owner_run_id = ? AND status = 'in_progress'`,
    [parentRunId],
  );
  for (const claim of claims) {
    if ((parseJson(claim.output) as { childRunId?: unknown } | null)?.childRunId !== childRunId) continue;
    await sql.run(
      `UPDATE claims SET status = 'failed', error = ?, updated_at = ? WHERE scope = ? AND key = ? AND fence = ? AND status = 'in_progress'`,
      ['Not done: the child run was cancelled with the run that started it.', now, claim.scope, claim.key, Number(claim.fence)],
    );
  }
}
