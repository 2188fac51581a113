/**
 * A webhook's run written already leased to the worker of its process, on each database:
 * it starts without a lease statement, the worker keeps one lease's worth of places for
 * runs that were already waiting, a run writing its ending leaves its place to new runs, a
 * paused flow's run is held all the same, and stop() waits for a run whose place was taken
 * before it was asked to stop.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../services.ts';
import type { Db, Sql } from '../store/db.ts';
import { getRun } from '../store/runs.ts';
import { listEvents } from '../store/timeline.ts';
import { testDatabases } from '../testing/databases.ts';
import { useTestServices } from '../testing/test-services.ts';
import { workerOnDatabase } from '../testing/engine-harness.ts';
import { until, untilRunStatus } from '../testing/wait-for.ts';
import { webhookNoteFlow } from '../testing/webhook-flows.ts';
import { triggerDirectory } from './trigger-directory.ts';
import { systemClock } from './types.ts';
import { webhookIntake } from './webhook-intake.ts';


const LEASE_STATEMENT = `UPDATE runs SET status = 'running', lease_owner`;

/** The database as the worker sees it, counting the runs its lease statements leased. */
function countingLeases(db: Db, counted: { leased: number }): Db {
  const watch = (sql: Sql): Sql => ({
    ...sql,
    async run(text, params) {
      const changed = await sql.run(text, params);
      if (text.includes(LEASE_STATEMENT)) counted.leased += changed;
      return changed;
    },
    async all(text, params) {
      const rows = await sql.all(text, params);
      if (text.includes(LEASE_STATEMENT)) counted.leased += rows.length;
      return rows;
    },
  }) as Sql;
  return { ...watch(db), durably: (work) => db.durably((sql) => work(watch(sql))) } as Db;
}

/** The database as the intake sees it: each delivery's write waits for `beforeWrite` first. */
function heldBeforeWrites(db: Db, beforeWrite: () => Promise<void>): Db {
  return {
    ...db,
    async durably(work) {
      await beforeWrite();
      return db.durably(work);
    },
    async all(text, params) {
      if (text.includes('INSERT INTO inbound_events')) await beforeWrite();
      return db.all(text, params);
    },
  } as Db;
}

/**
 * The database as the worker sees it, each of its transactions waiting for `gate` first
 * (counted in `held`). On SQLite a run of the note flow writes once, its ending, in a
 * transaction; heartbeats use `durably` and pass.
 */
function gatedTransactions(db: Db, gate: Promise<void>, held: { count: number }): Db {
  return {
    ...db,
    transaction: (work) => {
      held.count += 1;
      return gate.then(() => db.transaction(work));
    },
  } as Db;
}

for (const kind of testDatabases()) {
  describe(`runs started at intake on ${kind.name}`, () => {
    const { services: madeServices, workers } = useTestServices(kind);
    let services: Services;
    beforeAll(() => {
      services = madeServices();
    });

    /**
     * A worker of 8 places (2 of them the lease loop's) and an intake that asks it for
     * places; `beforeWrite` runs before each delivery is written.
     */
    async function workerAndIntake(beforeWrite: () => Promise<void> = async () => {}, workerDb: (db: Db) => Db = (db) => db) {
      // The one worker on this database: another test's would lease what this one queues.
      await Promise.all(workers.map((worker) => worker.stop(0)));
      const counted = { leased: 0 };
      const worker = workerOnDatabase(services, workerDb(countingLeases(services.db, counted)), { concurrency: 8 });
      workers.push(worker);
      worker.start();
      await worker.reached('running');
      const intake = webhookIntake({
        db: heldBeforeWrites(services.db, beforeWrite), clock: systemClock, triggers: triggerDirectory(services.db, services.plans, systemClock.now),
        secrets: () => services.secrets.values(), onQueued: () => worker.nudge(), startNow: () => worker.startNow(),
      });
      const { id: flowId, triggers } = await services.flows.import(webhookNoteFlow());
      const deliver = async (id: string) => {
        const answer = await intake.receive({ hookId: triggers[0]!.hookId, contentType: 'application/json', headers: {}, rawBody: Buffer.from(JSON.stringify({ id, order: { id: `order ${id}` } })) });
        expect(answer.status).toBe(202);
        return answer.body.runId as string;
      };
      return { worker, counted, flowId, deliver };
    }

    it('starts a new run at once, written leased to the worker: no lease statement, the same timeline', async () => {
      const { worker, counted, deliver } = await workerAndIntake();
      const runIds = [await deliver('evt_a'), await deliver('evt_b'), await deliver('evt_c')];
      for (const runId of runIds) {
        const run = await untilRunStatus(services.db, runId, ['succeeded']);
        expect(run).toMatchObject({ leaseFence: 1, attempt: 1, leaseOwner: null });
        const events = await listEvents(services.db, runId);
        expect(events.map((event) => event.type)).toEqual(['webhook.received', 'run.queued', 'run.started', 'step.started', 'step.succeeded', 'run.succeeded']);
        expect(events.find((event) => event.type === 'run.started')?.data).toMatchObject({ worker: worker.id, fence: 1, resumed: false });
      }
      expect(counted.leased).toBe(0);
    });

    it('leaves one lease of places to the loop: with the others taken, a new run is queued and leased as before', async () => {
      const { worker, counted, deliver } = await workerAndIntake();
      const places = Array.from({ length: 6 }, () => worker.startNow());
      expect(places.every((place) => place !== null)).toBe(true);
      expect(worker.startNow()).toBeNull();

      const runId = await deliver('evt_queued');
      await untilRunStatus(services.db, runId, ['succeeded']);
      expect(counted.leased).toBe(1);

      places[0]!.giveBack();
      const again = worker.startNow();
      expect(again).not.toBeNull();
      for (const place of [again, ...places.slice(1)]) place!.giveBack();
      await untilRunStatus(services.db, await deliver('evt_after'), ['succeeded']);
      expect(counted.leased).toBe(1);
    });

    // The accounting is the worker's and the same on both databases; holding an ending's
    // write back is simplest where it is a transaction of its own.
    it.runIf(kind.name === 'sqlite')('leaves the place of a run writing its ending to new runs, up to as many such runs as its concurrency', async () => {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const held = { count: 0 };
      const { worker, counted, deliver } = await workerAndIntake(undefined, (db) => gatedTransactions(db, gate, held));
      // Each run waits at the gate with its steps done. Six places are the intake's:
      // fourteen such runs fill them only once eight (the concurrency) go uncounted.
      const runIds: string[] = [];
      for (let index = 0; index < 14; index++) {
        runIds.push(await deliver(`evt_ending_${index}`));
        await until(`run ${index + 1} to be writing its ending`, () => held.count === index + 1);
      }
      expect(worker.startNow()).toBeNull();

      open();
      for (const runId of runIds) expect(await untilRunStatus(services.db, runId, ['succeeded'])).toMatchObject({ leaseFence: 1 });
      // Every one started at intake, written leased: none was queued and leased.
      expect(counted.leased).toBe(0);
    });

    it('holds a paused flow\'s run and gives its place back', async () => {
      const { worker, counted, flowId, deliver } = await workerAndIntake();
      await services.pause.pause(flowId, 'alice');
      const runId = await deliver('evt_paused');
      expect(await getRun(services.db, runId)).toMatchObject({ status: 'held', leaseOwner: null, leaseFence: 0, startedAt: null });
      // Every place is free again.
      const places = Array.from({ length: 6 }, () => worker.startNow());
      expect(places.every((place) => place !== null)).toBe(true);
      for (const place of places) place!.giveBack();

      await services.pause.resume(flowId, 'alice');
      await untilRunStatus(services.db, runId, ['succeeded']);
      expect(counted.leased).toBe(1);
    });

    it('stop() waits for a run whose place was taken before the stop, and executes it', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let writing!: () => void;
      const writeBegun = new Promise<void>((resolve) => (writing = resolve));
      const { worker, counted, deliver } = await workerAndIntake(() => {
        writing();
        return held;
      });
      const delivered = deliver('evt_stop');
      await writeBegun;
      let stopped = false;
      const stopping = worker.stop().then(() => (stopped = true));
      await until('the worker to stop leasing', () => worker.mode === 'stopping');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stopped).toBe(false);
      // No place for anyone else once stopping.
      expect(worker.startNow()).toBeNull();

      release();
      const runId = await delivered;
      await stopping;
      expect(worker.mode).toBe('stopped');
      expect(await getRun(services.db, runId)).toMatchObject({ status: 'succeeded', leaseFence: 1 });
      expect(counted.leased).toBe(0);
    });
  });
}
