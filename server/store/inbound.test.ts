import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { openDatabase, type Db } from './db.ts';
import { ingestDelivery, type Delivery } from './inbound.ts';
import { migrate } from './migrate.ts';
import { getRun } from './runs.ts';
import { listEvents } from './timeline.ts';

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
    let database: TestDatabase;
    let db: Db;
    beforeAll(async () => {
      database = await kind.create();
      db = await openDatabase(database.url);
      await migrate(db);
    });
    afterAll(async () => {
      await db.close();
      await database.drop();
    });

    it('queues a run for a new id and counts repeats on its timeline (the n-th delivery), in order', async () => {
      const first = await db.durably((sql) => ingestDelivery(sql, delivery('evt_1', 'run_a', 1000)));
      expect(first).toEqual({ duplicate: false, runId: 'run_a' });
      const run = await getRun(db, 'run_a');
      expect(run).toMatchObject({ status: 'queued', eventId: 'evt_1', input: { body: { id: 'evt_1' } }, createdAt: 1000 });

      expect(await db.durably((sql) => ingestDelivery(sql, delivery('evt_1', 'run_b', 2000)))).toEqual({ duplicate: true, runId: 'run_a', duplicates: 1 });
      expect(await db.durably((sql) => ingestDelivery(sql, delivery('evt_1', 'run_c', 3000)))).toEqual({ duplicate: true, runId: 'run_a', duplicates: 2 });
      expect(await getRun(db, 'run_b')).toBeUndefined();

      const events = await listEvents(db, 'run_a');
      expect(events.map((event) => [event.type, event.nodeId, event.data, event.createdAt])).toEqual([
        ['webhook.received', 'hook', { eventId: 'evt_1' }, 1000],
        ['run.queued', null, { trigger: 'webhook', eventId: 'evt_1', replayOf: null }, 1000],
        ['webhook.duplicate', 'hook', { eventId: 'evt_1', repeat: 2 }, 2000],
        ['webhook.duplicate', 'hook', { eventId: 'evt_1', repeat: 3 }, 3000],
      ]);
    });

    it('accepts an id again once its dedupe window has passed', async () => {
      await db.durably((sql) => ingestDelivery(sql, delivery('evt_2', 'run_d', 1000, 1500)));
      expect(await db.durably((sql) => ingestDelivery(sql, delivery('evt_2', 'run_e', 2000)))).toEqual({ duplicate: false, runId: 'run_e' });
      expect(await getRun(db, 'run_e')).toMatchObject({ status: 'queued' });
      expect((await listEvents(db, 'run_d')).map((event) => event.type)).toEqual(['webhook.received', 'run.queued']);
    });

    it('gives every queued run the next number', async () => {
      await db.durably((sql) => ingestDelivery(sql, delivery('evt_3', 'run_f', 4000)));
      await db.durably((sql) => ingestDelivery(sql, delivery('evt_4', 'run_g', 4000)));
      const [f, g] = [await getRun(db, 'run_f'), await getRun(db, 'run_g')];
      expect(g!.seq).toBe(f!.seq + 1);
    });
  });
}
