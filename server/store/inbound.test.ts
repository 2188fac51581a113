import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { ingestDelivery, type Delivery } from './inbound.ts';
import { getRun, leaseRuns, runLeasedOnInsert } from './runs.ts';
import { listEvents } from './timeline.ts';
import { runTimeline, TEST_TRIGGER } from '../testing/run-timeline.ts';
import { MAX_LISTED_REPEATS } from './inbound-repeats.ts';

const delivery = (eventId: string, runId: string, now: number, expiresAt = now + 60_000): Delivery => ({
  inboundId: `inb_${runId}`,
  hookId: 'hook_1',
  eventId,
  expiresAt,
  eventData: { eventId },
  run: {
    id: runId, flowId: 'flow_1', versionId: 'ver_1', input: { body: { id: eventId } }, triggerKind: 'webhook', triggerNode: 'hook',
    eventId, replayOf: null, createdAt: now, createdBy: 'webhook',
  },
});

for (const kind of testDatabases()) {
  describe(`ingesting deliveries (${kind.name})`, () => {
    const database = useMigratedDatabase(kind);

    it('queues a run for a new id and counts repeats on its timeline (the n-th delivery), in order', async () => {
      await database().run(TEST_TRIGGER);
      const first = await database().durably((sql) => ingestDelivery(sql, delivery('evt_1', 'run_a', 1000)));
      const run = await getRun(database(), 'run_a');
      expect(first).toEqual({ duplicate: false, runId: 'run_a', seq: run!.seq, status: 'queued' });
      expect(run).toMatchObject({ status: 'queued', eventId: 'evt_1', input: { body: { id: 'evt_1' } }, createdAt: 1000 });

      expect(await database().durably((sql) => ingestDelivery(sql, delivery('evt_1', 'run_b', 2000)))).toEqual({ duplicate: true, runId: 'run_a', duplicates: 1 });
      expect(await database().durably((sql) => ingestDelivery(sql, delivery('evt_1', 'run_c', 3000)))).toEqual({ duplicate: true, runId: 'run_a', duplicates: 2 });
      expect(await getRun(database(), 'run_b')).toBeUndefined();

      const events = await runTimeline(database(), 'run_a');
      expect(events.map((event) => [event.type, event.nodeId, event.data, event.createdAt])).toEqual([
        ['webhook.received', 'hook', { eventId: 'evt_1' }, 1000],
        ['run.queued', null, { trigger: 'webhook', eventId: 'evt_1', replayOf: null }, 1000],
        ['webhook.duplicate', 'hook', { eventId: 'evt_1', repeat: 2 }, 2000],
        ['webhook.duplicate', 'hook', { eventId: 'evt_1', repeat: 3 }, 3000],
      ]);
      // The repeats are listed on the delivery's row, not stored as timeline rows.
      expect((await listEvents(database(), 'run_a')).map((event) => event.type)).toEqual(['webhook.received', 'run.queued']);
    });

    it('lists the first repeats one by one and counts the rest, the latest saying how many came between', async () => {
      await database().run(TEST_TRIGGER);
      await database().durably((sql) => ingestDelivery(sql, delivery('evt_many', 'run_many', 1000)));
      const repeats = MAX_LISTED_REPEATS + 5;
      for (let index = 1; index <= repeats; index++) {
        expect(await database().durably((sql) => ingestDelivery(sql, delivery('evt_many', `run_many_${index}`, 1000 + index))))
          .toEqual({ duplicate: true, runId: 'run_many', duplicates: index });
      }
      const shown = (await runTimeline(database(), 'run_many')).filter((event) => event.type === 'webhook.duplicate');
      expect(shown).toHaveLength(MAX_LISTED_REPEATS + 1);
      expect(shown.slice(0, MAX_LISTED_REPEATS).map((event) => [event.data, event.createdAt])).toEqual(
        Array.from({ length: MAX_LISTED_REPEATS }, (_, index) => [{ eventId: 'evt_many', repeat: index + 2 }, 1001 + index]),
      );
      expect(shown.at(-1)).toMatchObject({ data: { eventId: 'evt_many', repeat: repeats + 1, notListed: repeats - MAX_LISTED_REPEATS - 1 }, createdAt: 1000 + repeats });

      // Past its window the id goes to a new run, and the old run's timeline keeps the same events as rows.
      expect(await database().durably((sql) => ingestDelivery(sql, delivery('evt_many', 'run_many_again', 100_000)))).toMatchObject({ duplicate: false });
      const stored = (await listEvents(database(), 'run_many')).filter((event) => event.type === 'webhook.duplicate');
      expect(stored.map((event) => [event.nodeId, event.data, event.createdAt])).toEqual(shown.map((event) => [event.nodeId, event.data, event.createdAt]));
      expect(await runTimeline(database(), 'run_many')).toHaveLength(2 + shown.length);
    });

    it('accepts an id again once its dedupe window has passed, leaving the old run its repeats', async () => {
      await database().run(TEST_TRIGGER);
      await database().durably((sql) => ingestDelivery(sql, delivery('evt_2', 'run_d', 1000, 1500)));
      expect(await database().durably((sql) => ingestDelivery(sql, delivery('evt_2', 'run_d2', 1200, 1700)))).toEqual({ duplicate: true, runId: 'run_d', duplicates: 1 });
      expect(await database().durably((sql) => ingestDelivery(sql, delivery('evt_2', 'run_e', 2000)))).toMatchObject({ duplicate: false, runId: 'run_e', status: 'queued' });
      expect(await getRun(database(), 'run_e')).toMatchObject({ status: 'queued' });
      // The row now speaks for run_e: run_d's repeat was written to its timeline when it was taken over.
      expect((await listEvents(database(), 'run_d')).map((event) => [event.type, event.data, event.createdAt])).toEqual([
        ['webhook.received', { eventId: 'evt_2' }, 1000],
        ['run.queued', { trigger: 'webhook', eventId: 'evt_2', replayOf: null }, 1000],
        ['webhook.duplicate', { eventId: 'evt_2', repeat: 2 }, 1200],
      ]);
      expect((await runTimeline(database(), 'run_d')).filter((event) => event.type === 'webhook.duplicate')).toHaveLength(1);
      expect((await runTimeline(database(), 'run_e')).map((event) => event.type)).toEqual(['webhook.received', 'run.queued']);
    });

    it('gives every queued run the next number', async () => {
      await database().durably((sql) => ingestDelivery(sql, delivery('evt_3', 'run_f', 4000)));
      await database().durably((sql) => ingestDelivery(sql, delivery('evt_4', 'run_g', 4000)));
      const [f, g] = [await getRun(database(), 'run_f'), await getRun(database(), 'run_g')];
      expect(g!.seq).toBe(f!.seq + 1);
    });

    it('writes a run leased to a worker when asked, the same row the worker is handed, and holds it instead in a paused flow', async () => {
      const db = database();
      await db.run(`INSERT INTO flows (id, name, draft, created_at, updated_at, paused_at, paused_by) VALUES ('flow_1', 'Live', '{}', 1, 1, NULL, NULL), ('flow_p', 'Paused', '{}', 1, 1, 5, 'alice')`);
      const leaseTo = { workerId: 'wrk_1', leaseUntil: 9_000 };
      const leased = { ...delivery('evt_5', 'run_h', 5000), run: { ...delivery('evt_5', 'run_h', 5000).run, leaseTo } };
      const answer = await db.durably((sql) => ingestDelivery(sql, leased));
      expect(answer).toMatchObject({ duplicate: false, runId: 'run_h', status: 'running' });
      const written = await getRun(db, 'run_h');
      expect(written).toMatchObject({ status: 'running', leaseOwner: 'wrk_1', leaseUntil: 9_000, leaseFence: 1, startedAt: 5000, attempt: 1 });
      const { flowPausedAt, flowPausedBy, ...handed } = runLeasedOnInsert(leased.run, leaseTo, answer.duplicate ? -1 : answer.seq);
      expect([flowPausedAt, flowPausedBy]).toEqual([null, null]);
      expect(handed).toEqual(written);
      // No other worker can lease it while its lease holds.
      const others = await leaseRuns(db, { workerId: 'wrk_2', limit: 100, leaseMs: 1000, now: 6000 });
      expect(others.map((each) => each.id)).not.toContain('run_h');

      const paused = { ...delivery('evt_6', 'run_i', 5000), run: { ...delivery('evt_6', 'run_i', 5000).run, flowId: 'flow_p', leaseTo } };
      expect(await db.durably((sql) => ingestDelivery(sql, paused))).toMatchObject({ duplicate: false, runId: 'run_i', status: 'held' });
      expect(await getRun(db, 'run_i')).toMatchObject({ status: 'held', leaseOwner: null, leaseUntil: null, leaseFence: 0, startedAt: null });
    });
  });
}
