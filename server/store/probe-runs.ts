/**
 * Runs a proof hands to a probe process (a real worker it stops hard between a step's
 * action and its record). Such a run is created held, so no ordinary worker takes it;
 * only the probe leases it, by id. Once the probe is dead — the proof saw it exit — the
 * run and the claims it held are released at once, instead of after their leases lapse.
 */
import type { Db, Sql } from './db.ts';
import type { LeaseRequest } from './runs.ts';
import { RUN_COLUMNS, toRun } from './rows.ts';
import type { RunRow } from './types.ts';

/** Keeps a just-inserted queued run back for a probe (same transaction as its insert). */
export async function holdForProbe(sql: Sql, runId: string): Promise<void> {
  await sql.run(`UPDATE runs SET status = 'held' WHERE id = ? AND status = 'queued'`, [runId]);
}

/** The probe's lease: that one held run, or nothing. */
export async function leaseHeldRun(db: Db, runId: string, request: LeaseRequest): Promise<RunRow[]> {
  const rows = await db.durably((sql) => sql.all(
    `UPDATE runs SET status = 'running', lease_owner = ?, lease_until = ?, lease_fence = lease_fence + 1,
       wake_at = NULL, started_at = COALESCE(started_at, ?)
     WHERE id = ? AND status = 'held'
     RETURNING ${RUN_COLUMNS}`,
    [request.workerId, request.now + request.leaseMs, request.now, runId],
  ));
  return rows.map(toRun);
}

/**
 * After the probe died: the run goes back to the queue (a new fence, so nothing the dead
 * process wrote can land) and its claims in progress count as lapsed.
 */
export async function releaseProbedRun(db: Db, runId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const moved = await tx.run(
      `UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL, lease_fence = lease_fence + 1
       WHERE id = ? AND status = 'running'`,
      [runId],
    );
    await tx.run(`UPDATE claims SET lease_until = 0 WHERE owner_run_id = ? AND status = 'in_progress'`, [runId]);
    return moved === 1;
  });
}
