/**
 * The pause rows on each database, without a worker: queued runs are held by Pause, runs
 * inserted while paused are held in the same statement (webhook intake included), and
 * Resume queues them again in arrival order with who did it on each timeline.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { ingestDelivery } from './inbound.ts';
import { countHeldRuns, pauseFlow, readFlowPause, resumeFlow } from './pause.ts';
import { insertRun, leaseRuns, type NewRun } from './runs.ts';

const run = (id: string, flowId: string, createdAt: number, triggerKind = 'manual'): NewRun => ({
  id, flowId, versionId: 'ver_1', input: {}, triggerKind, triggerNode: null, eventId: null, replayOf: null, createdAt, createdBy: 'test',
});

for (const kind of testDatabases()) {
  describe(`pause rows on ${kind.name}`, () => {
    const database = useMigratedDatabase(kind);

    it('holds queued and new runs, never leases them, and queues them again in arrival order', async () => {
      const db = database();
      await db.run(`INSERT INTO flows (id, name, draft, created_at, updated_at) VALUES ('flow_p', 'P', '{}', 1, 1), ('flow_q', 'Q', '{}', 1, 1)`);
      await db.transaction((tx) => insertRun(tx, run('run_a', 'flow_p', 10)));
      await db.transaction((tx) => insertRun(tx, run('run_other', 'flow_q', 11)));

      expect(await db.transaction((tx) => pauseFlow(tx, 'flow_p', 'alice', 100))).toEqual({ held: 1, alreadyPaused: false });
      expect(await db.transaction((tx) => pauseFlow(tx, 'flow_p', 'bob', 101))).toEqual({ held: 0, alreadyPaused: true });
      expect(await readFlowPause(db, 'flow_p')).toEqual({ pausedAt: 100, pausedBy: 'alice' });
      expect(await db.transaction((tx) => pauseFlow(tx, 'flow_missing', 'alice', 100))).toBeNull();

      await db.transaction((tx) => insertRun(tx, run('run_b', 'flow_p', 20, 'schedule')));
      const delivery = await db.durably((sql) => ingestDelivery(sql, {
        inboundId: 'inb_1', hookId: 'hook_p', eventId: 'evt_1', expiresAt: 10_000, eventData: { eventId: 'evt_1' }, run: { ...run('run_c', 'flow_p', 30, 'webhook'), eventId: 'evt_1' },
      }));
      expect(delivery).toMatchObject({ duplicate: false, runId: 'run_c', status: 'held' });
      const statuses = await db.all<{ id: string; status: string }>(`SELECT id, status FROM runs ORDER BY seq`);
      expect(statuses).toEqual([
        { id: 'run_a', status: 'held' }, { id: 'run_other', status: 'queued' }, { id: 'run_b', status: 'held' }, { id: 'run_c', status: 'held' },
      ]);
      expect(await countHeldRuns(db, ['flow_p', 'flow_q'])).toEqual(new Map([['flow_p', { held: 3, scheduleFires: 1 }]]));

      const leased = await leaseRuns(db, { workerId: 'w1', limit: 10, leaseMs: 1000, now: 200 });
      expect(leased.map((row) => row.id)).toEqual(['run_other']);

      expect(await db.transaction((tx) => resumeFlow(tx, 'flow_p', { by: 'carol', now: 300, dropScheduleFires: false }))).toEqual({ released: 3, dropped: 0 });
      expect(await readFlowPause(db, 'flow_p')).toBeNull();
      const next = await leaseRuns(db, { workerId: 'w1', limit: 10, leaseMs: 1000, now: 400 });
      expect(next.map((row) => row.id)).toEqual(['run_a', 'run_b', 'run_c']);
      const events = await db.all<{ run_id: string; type: string; data: string }>(
        `SELECT run_id, type, data FROM timeline_events WHERE type IN ('run.held', 'run.released') ORDER BY id`);
      expect(events.map((event) => [event.run_id, event.type, JSON.parse(event.data)])).toEqual([
        ['run_a', 'run.held', { by: 'alice', reason: 'paused' }],
        ['run_a', 'run.released', { by: 'carol' }],
        ['run_b', 'run.released', { by: 'carol' }],
        ['run_c', 'run.released', { by: 'carol' }],
      ]);
      expect(await db.transaction((tx) => resumeFlow(tx, 'flow_missing', { by: 'carol', now: 300, dropScheduleFires: false }))).toBeNull();
    });
  });
}
