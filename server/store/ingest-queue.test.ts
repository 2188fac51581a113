/**
 * Deliveries that arrive together: one group commit on SQLite, batch statements on
 * PostgreSQL. Whatever shares a statement, each delivery gets the answer and the rows it
 * would have got alone, in arrival order, and one the database refuses fails alone.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { ingestDelivery, type Delivery } from './inbound.ts';
import { ingestBatch } from './inbound-batch.ts';
import { ingestQueue } from './ingest-queue.ts';
import { inputValues, searchedBody } from './input-values.ts';
import { listRuns } from './run-list.ts';
import { getRun, insertRun } from './runs.ts';
import { listEvents } from './timeline.ts';
import { runTimeline, TEST_TRIGGER } from '../testing/run-timeline.ts';

const NOW = 1_000_000;

const delivery = (eventId: string, runId: string, options: { now?: number; expiresAt?: number; flowId?: string; body?: unknown } = {}): Delivery => {
  const now = options.now ?? NOW;
  return {
    inboundId: `inb_${runId}`, hookId: 'hook_1', eventId, expiresAt: options.expiresAt ?? now + 60_000, eventData: { eventId },
    run: {
      id: runId, flowId: options.flowId ?? 'flow_1', versionId: 'ver_1', input: { body: options.body ?? { id: eventId } }, triggerKind: 'webhook',
      triggerNode: 'hook', eventId, replayOf: null, createdAt: now, createdBy: 'webhook',
    },
  };
};

const timeline = async (db: Parameters<typeof listEvents>[0], runId: string) =>
  (await runTimeline(db, runId)).map((event) => [event.type, event.data]);

for (const kind of testDatabases()) {
  describe(`deliveries arriving together (${kind.name})`, () => {
    const database = useMigratedDatabase(kind);

    it('records a burst as each delivery alone would be: new ids, repeats inside the burst and of stored ids, an id past its window, a paused flow', async () => {
      const db = database();
      await db.run(`INSERT INTO flows (id, name, draft, created_at, updated_at, paused_at, paused_by) VALUES ('flow_paused', 'P', '{}', 1, 1, 5, 'alice')`);
      await db.run(TEST_TRIGGER);
      await db.durably((sql) => ingestDelivery(sql, delivery('evt_stored', 'run_stored', { now: NOW - 10 })));
      await db.durably((sql) => ingestDelivery(sql, delivery('evt_lapsed', 'run_lapsed', { now: NOW - 100, expiresAt: NOW - 50 })));
      await db.durably((sql) => ingestDelivery(sql, delivery('evt_lapsed', 'run_lapsed_repeat', { now: NOW - 80, expiresAt: NOW - 30 })));

      const ingest = ingestQueue(db);
      const burst = [
        ...Array.from({ length: 20 }, (_, index) => delivery(`evt_${index}`, `run_${String(index).padStart(2, '0')}`, { body: { id: `evt_${index}`, order: { id: index, note: `n${index}` } } })),
        delivery('evt_stored', 'run_repeat_stored'),
        delivery('evt_lapsed', 'run_taken_over'),
        delivery('evt_0', 'run_repeat_a'),
        delivery('evt_0', 'run_repeat_b'),
        delivery('evt_held', 'run_held', { flowId: 'flow_paused' }),
      ];
      const answers = await Promise.all(burst.map((each) => ingest(each)));

      const queued = (runId: string) => ({ duplicate: false, runId, seq: expect.any(Number), status: 'queued' });
      expect(answers.slice(0, 20)).toEqual(burst.slice(0, 20).map((each) => queued(each.run.id)));
      expect(answers.slice(20)).toEqual([
        { duplicate: true, runId: 'run_stored', duplicates: 1 },
        queued('run_taken_over'),
        { duplicate: true, runId: 'run_00', duplicates: 1 },
        { duplicate: true, runId: 'run_00', duplicates: 2 },
        { duplicate: false, runId: 'run_held', seq: expect.any(Number), status: 'held' },
      ]);

      // Numbers in arrival order, and no run for a repeat.
      const runs = await db.all<{ id: string; status: string }>(`SELECT id, status FROM runs WHERE created_at = ? ORDER BY seq`, [NOW]);
      expect(runs.map((run) => run.id)).toEqual([...burst.slice(0, 20).map((each) => each.run.id), 'run_taken_over', 'run_held']);
      expect(runs.find((run) => run.id === 'run_held')?.status).toBe('held');
      expect(runs.find((run) => run.id === 'run_05')?.status).toBe('queued');

      expect(await timeline(db, 'run_00')).toEqual([
        ['webhook.received', { eventId: 'evt_0' }],
        ['run.queued', { trigger: 'webhook', eventId: 'evt_0', replayOf: null }],
        ['webhook.duplicate', { eventId: 'evt_0', repeat: 2 }],
        ['webhook.duplicate', { eventId: 'evt_0', repeat: 3 }],
      ]);
      expect((await timeline(db, 'run_stored')).at(-1)).toEqual(['webhook.duplicate', { eventId: 'evt_stored', repeat: 2 }]);
      expect(await timeline(db, 'run_taken_over')).toEqual([
        ['webhook.received', { eventId: 'evt_lapsed' }],
        ['run.queued', { trigger: 'webhook', eventId: 'evt_lapsed', replayOf: null }],
      ]);
      // The run whose id was taken over keeps its repeat, now a row of its timeline.
      expect((await listEvents(db, 'run_lapsed')).map((event) => [event.type, event.data, event.createdAt])).toEqual([
        ['webhook.received', { eventId: 'evt_lapsed' }, NOW - 100],
        ['run.queued', { trigger: 'webhook', eventId: 'evt_lapsed', replayOf: null }, NOW - 100],
        ['webhook.duplicate', { eventId: 'evt_lapsed', repeat: 2 }, NOW - 80],
      ]);
      expect(await getRun(db, 'run_07')).toMatchObject({ input: { body: { id: 'evt_7', order: { id: 7, note: 'n7' } } }, eventId: 'evt_7', createdAt: NOW });

      // Each run's searchable values, exactly those its input gives: each finds the run, and
      // on PostgreSQL its rows are those values (SQLite's full-text row cannot be read back).
      const run07 = await getRun(db, 'run_07');
      const expected = inputValues(searchedBody({ input: run07!.input, triggerKind: 'webhook' })).map(({ path, value }) => ({ path, value })).sort((a, b) => a.path.localeCompare(b.path));
      expect(expected.length).toBeGreaterThan(0);
      for (const input of expected) expect((await listRuns(db, { input, limit: 50 })).map((run) => run.id)).toContain('run_07');
      expect(await listRuns(db, { input: { path: 'order.id', value: '7x' }, limit: 50 })).toEqual([]);
      if (db.dialect === 'postgresql') {
        const stored = await db.all<{ path: string; value: string }>(`SELECT path, value FROM run_input_values WHERE run_seq = ? ORDER BY path`, [run07!.seq]);
        expect(stored).toEqual(expected);
      }

      const inbound = await db.get<{ run_id: string; duplicates: number }>(`SELECT run_id, duplicates FROM inbound_events WHERE hook_id = 'hook_1' AND event_id = 'evt_0'`);
      expect({ runId: inbound?.run_id, duplicates: Number(inbound?.duplicates) }).toEqual({ runId: 'run_00', duplicates: 2 });
    });

    it('fails only the delivery the database refuses; the others of its burst are recorded', async () => {
      const db = database();
      // A run id already taken: this delivery's run cannot be inserted.
      await db.transaction((tx) => insertRun(tx, delivery('evt_other', 'run_clash').run));
      const ingest = ingestQueue(db);
      const settled = await Promise.allSettled([
        ingest(delivery('evt_fine_1', 'run_fine_1')),
        ingest(delivery('evt_refused', 'run_clash')),
        ingest(delivery('evt_fine_2', 'run_fine_2')),
      ]);
      expect(settled.map((each) => each.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await getRun(db, 'run_fine_1')).toMatchObject({ status: 'queued' });
      expect(await getRun(db, 'run_fine_2')).toMatchObject({ status: 'queued' });
      expect(await db.get(`SELECT id FROM inbound_events WHERE event_id = 'evt_refused'`)).toBeUndefined();
    });
  });
}

for (const kind of testDatabases().filter((each) => each.name === 'postgresql')) {
  describe(`the batch statement (${kind.name})`, () => {
    const database = useMigratedDatabase(kind);

    it('answers in the batch order and writes nothing when one delivery is refused', async () => {
      const db = database();
      await db.durably((sql) => ingestDelivery(sql, delivery('evt_b', 'run_b')));
      expect(await ingestBatch(db, [delivery('evt_a', 'run_a'), delivery('evt_b', 'run_b2'), delivery('evt_c', 'run_c')])).toEqual([
        { duplicate: false, runId: 'run_a', seq: (await getRun(db, 'run_a'))!.seq, status: 'queued' },
        { duplicate: true, runId: 'run_b', duplicates: 1 },
        { duplicate: false, runId: 'run_c', seq: (await getRun(db, 'run_c'))!.seq, status: 'queued' },
      ]);
      await expect(ingestBatch(db, [delivery('evt_d', 'run_d'), delivery('evt_e', 'run_a')])).rejects.toThrow();
      expect(await db.get(`SELECT id FROM inbound_events WHERE event_id = 'evt_d'`)).toBeUndefined();
      expect(await getRun(db, 'run_d')).toBeUndefined();
    });

    it('writes each run leased or queued as its delivery asked, in one statement, and a paused flow\'s held', async () => {
      const db = database();
      await db.run(`INSERT INTO flows (id, name, draft, created_at, updated_at, paused_at, paused_by) VALUES ('flow_stopped', 'P', '{}', 1, 1, 5, 'alice')`);
      await db.durably((sql) => ingestDelivery(sql, delivery('evt_r', 'run_r')));
      const leaseTo = { workerId: 'wrk_1', leaseUntil: NOW + 30_000 };
      const leased = (each: Delivery): Delivery => ({ ...each, run: { ...each.run, leaseTo } });
      const answers = await ingestBatch(db, [
        leased(delivery('evt_l1', 'run_l1')), delivery('evt_q1', 'run_q1'), leased(delivery('evt_h1', 'run_h1', { flowId: 'flow_stopped' })), leased(delivery('evt_r', 'run_again')),
      ]);
      expect(answers.map((answer) => (answer.duplicate ? 'duplicate' : answer.status))).toEqual(['running', 'queued', 'held', 'duplicate']);
      expect(await getRun(db, 'run_l1')).toMatchObject({ status: 'running', leaseOwner: 'wrk_1', leaseUntil: NOW + 30_000, leaseFence: 1, startedAt: NOW });
      expect(await getRun(db, 'run_q1')).toMatchObject({ status: 'queued', leaseOwner: null, leaseUntil: null, leaseFence: 0, startedAt: null });
      expect(await getRun(db, 'run_h1')).toMatchObject({ status: 'held', leaseOwner: null, leaseUntil: null, leaseFence: 0, startedAt: null });
      expect(await getRun(db, 'run_again')).toBeUndefined();
    });
  });
}
