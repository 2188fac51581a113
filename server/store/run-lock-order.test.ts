/**
 * On PostgreSQL, writes that take several runs' rows take them in id order (runs.ts, above
 * HEARTBEAT), so two of them needing the same rows queue instead of deadlocking. Each test
 * holds the higher id's row, starts the write, waits until PostgreSQL shows it blocked,
 * and then finds the lower id's row already locked: the write took it first. The rows are
 * inserted higher id first, so a write taking them in the table's order would block on the
 * higher one with the lower one still free.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { wakeWaiters, holdChildren } from './child-runs.ts';
import type { Db } from './db.ts';
import { heartbeatRuns, insertRun, leaseRuns, type NewRun } from './runs.ts';

const newRun = (id: string, createdAt: number): NewRun => ({
  id, flowId: 'flow_1', versionId: 'ver_1', input: {}, triggerKind: 'manual', triggerNode: null, eventId: null, replayOf: null, createdAt, createdBy: 'test',
});

const postgres = testDatabases().find((candidate) => candidate.name === 'postgresql');

/** Holds a run's row in a transaction of its own until `release` is called. */
async function holdRow(db: Db, id: string): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => { locked = resolve; });
  const done = db.transaction(async (tx) => {
    await tx.get('SELECT id FROM runs WHERE id = ? FOR UPDATE', [id]);
    locked();
    await released;
  });
  await isLocked;
  return { release: async () => { release(); await done; } };
}

/** Waits until a statement of this database waits for a row lock. */
async function untilBlocked(db: Db): Promise<void> {
  for (let look = 0; look < 500; look++) {
    const row = await db.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    if (Number(row?.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no statement blocked on a row lock within 5 s');
}

/** Whether another transaction holds the run's row (FOR UPDATE NOWAIT fails at once, 55P03). */
async function isRowLocked(db: Db, id: string): Promise<boolean> {
  try {
    await db.transaction((tx) => tx.get('SELECT id FROM runs WHERE id = ? FOR UPDATE NOWAIT', [id]));
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return true;
    throw error;
  }
}

describe.runIf(postgres)('the order writes take runs\' rows in on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  const database = useMigratedDatabase(postgres!);

  async function insertRunning(ids: string[], worker: string): Promise<Map<string, number>> {
    const db = database();
    for (const [index, id] of ids.entries()) await db.transaction((tx) => insertRun(tx, newRun(id, 100 + index)));
    const leased = await leaseRuns(db, { workerId: worker, limit: ids.length, leaseMs: 60_000, now: 1_000 });
    expect(leased.map((run) => run.id).sort()).toEqual([...ids].sort());
    return new Map(leased.map((run) => [run.id, run.leaseFence]));
  }

  it('a heartbeat takes its runs\' rows in id order, so it never holds one while waiting for a lower one', async () => {
    const db = database();
    const fences = await insertRunning(['run_hb_2', 'run_hb_1'], 'wrk_hb');
    const holder = await holdRow(db, 'run_hb_2');
    const beat = heartbeatRuns(db, [{ id: 'run_hb_2', fence: fences.get('run_hb_2')! }, { id: 'run_hb_1', fence: fences.get('run_hb_1')! }], 90_000);
    await untilBlocked(db);
    expect(await isRowLocked(db, 'run_hb_1')).toBe(true);
    await holder.release();
    expect(await beat).toEqual([]);
  });

  it('a run parking on its child takes its own row and the child\'s in id order, as the heartbeat does', async () => {
    const db = database();
    // The parent's id is the lower: taken children first, the parent's row would still be free.
    await insertRunning(['run_pk_2', 'run_pk_1'], 'wrk_pk');
    const holder = await holdRow(db, 'run_pk_2');
    const parked = db.transaction((tx) => holdChildren(tx, 'run_pk_1', [{ runId: 'run_pk_2', seenStatus: 'running' }]));
    await untilBlocked(db);
    expect(await isRowLocked(db, 'run_pk_1')).toBe(true);
    await holder.release();
    expect(await parked).toBe(false);
    expect(await db.get('SELECT waits_for_run_id FROM runs WHERE id = ?', ['run_pk_1'])).toEqual({ waits_for_run_id: 'run_pk_2' });
  });

  it('a child\'s end wakes the runs waiting for it in id order', async () => {
    const db = database();
    for (const [index, id] of ['run_wk_3', 'run_wk_1', 'run_wk_child'].entries()) await db.transaction((tx) => insertRun(tx, newRun(id, 200 + index)));
    await db.run(`UPDATE runs SET status = 'waiting', wake_at = 9999999, waits_for_run_id = 'run_wk_child' WHERE id IN ('run_wk_3', 'run_wk_1')`);
    const holder = await holdRow(db, 'run_wk_3');
    const woken = db.transaction((tx) => wakeWaiters(tx, 'run_wk_1', 'run_wk_child', 5_000));
    await untilBlocked(db);
    expect(await isRowLocked(db, 'run_wk_1')).toBe(true);
    await holder.release();
    await woken;
    expect(await db.all(`SELECT id, wake_at FROM runs WHERE id IN ('run_wk_1', 'run_wk_3') ORDER BY id`)).toEqual([
      { id: 'run_wk_1', wake_at: 5_000 }, { id: 'run_wk_3', wake_at: 5_000 },
    ]);
  });
});
