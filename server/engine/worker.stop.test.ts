/**
 * A real worker on each database: its modes, heartbeats that never overlap, and a stop that
 * waits for the heartbeat and the run in flight. The database is the real one, seen
 * through a wrapper that can hold or slow the worker's announcement (the first statement
 * of every heartbeat), so a test decides when a heartbeat finishes.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../services.ts';
import type { Db } from '../store/db.ts';
import { getRun } from '../store/runs.ts';
import { testDatabases } from '../testing/databases.ts';
import { useTestServices } from '../testing/test-services.ts';
import { invoiceFlow, workerOnDatabase } from '../testing/engine-harness.ts';
import { until } from '../testing/wait-for.ts';
import type { Worker } from './worker.ts';

/** What the wrapper saw of the worker's own rows, in order, and how many heartbeats overlapped. */
interface Watch {
  events: string[];
  beatsInFlight: number;
  mostBeatsAtOnce: number;
  beatsDone: number;
  /** Runs before each announcement reaches the database; the heartbeat waits for it. */
  beforeAnnounce?: () => Promise<void>;
}

function watched(db: Db, watch: Watch): Db {
  return {
    ...db,
    async run(sql, params) {
      if (sql.includes('DELETE FROM workers')) watch.events.push('retire');
      if (!sql.includes('INSERT INTO workers')) return db.run(sql, params);
      watch.beatsInFlight += 1;
      watch.mostBeatsAtOnce = Math.max(watch.mostBeatsAtOnce, watch.beatsInFlight);
      watch.events.push('announce:start');
      try {
        await watch.beforeAnnounce?.();
        return await db.run(sql, params);
      } finally {
        watch.beatsInFlight -= 1;
        watch.beatsDone += 1;
        watch.events.push('announce:end');
      }
    },
  };
}

const newWatch = (): Watch => ({ events: [], beatsInFlight: 0, mostBeatsAtOnce: 0, beatsDone: 0 });

/** A receiver on loopback that holds every request until `answer()`. */
async function startHoldingReceiver() {
  const held: ServerResponse[] = [];
  let arrived!: () => void;
  const firstCall = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      held.push(response);
      arrived();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    firstCall,
    answer() {
      for (const response of held.splice(0)) response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"inv_1"}');
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

for (const kind of testDatabases()) {
  describe(`worker lifecycle on ${kind.name}`, () => {
    const { services: madeServices, workers } = useTestServices(kind);
    let services: Services;
    beforeAll(() => {
      services = madeServices();
    });

    /** A worker whose heartbeat runs every max(50, leaseMs / 3) ms. */
    function workerOn(db: Db, leaseMs: number): Worker {
      const worker = workerOnDatabase(services, db, { concurrency: 4, leaseMs });
      workers.push(worker);
      return worker;
    }
    const announced = async (worker: Worker) =>
      Number((await services.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM workers WHERE id = ?`, [worker.id]))?.n);

    it('goes idle → starting → running → stopping → stopped, and refuses to start twice or again', async () => {
      const worker = workerOn(services.db, 3000);
      expect(worker.mode).toBe('idle');
      worker.start();
      expect(worker.mode).toBe('starting');
      await worker.reached('running');
      expect(worker.mode).toBe('running');
      expect(() => worker.start()).toThrow('The worker cannot go from running to starting.');
      await until('the first heartbeat to announce the worker', async () => (await announced(worker)) === 1);

      const stopping = worker.stop();
      expect(worker.mode).toBe('stopping');
      expect(worker.stop()).toBe(stopping);
      await stopping;
      expect(worker.mode).toBe('stopped');
      expect(await announced(worker)).toBe(0);
      expect(() => worker.start()).toThrow('The worker cannot go from stopped to starting.');
    });

    it('stops at once when it never started', async () => {
      const watch = newWatch();
      const worker = workerOn(watched(services.db, watch), 3000);
      await worker.stop();
      expect(worker.mode).toBe('stopped');
      expect(watch.events).toEqual([]);
    });

    it('stop() waits for a heartbeat in flight, and retires the worker only after it', async () => {
      const watch = newWatch();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let announcing!: () => void;
      const firstAnnouncement = new Promise<void>((resolve) => (announcing = resolve));
      watch.beforeAnnounce = () => {
        announcing();
        return held;
      };
      const worker = workerOn(watched(services.db, watch), 3000);
      worker.start();
      await firstAnnouncement;

      let stopped = false;
      const stopping = worker.stop().then(() => (stopped = true));
      // The lease loop has ended; the held heartbeat is all that is left.
      await until('the stop to wait on the heartbeat alone', () => worker.mode === 'stopping' && worker.backgroundCount() === 1);
      expect(stopped).toBe(false);
      expect(watch.events).toEqual(['announce:start']);

      release();
      await stopping;
      expect(watch.events).toEqual(['announce:start', 'announce:end', 'retire']);
      // The late announcement did not bring the retired worker back.
      expect(await announced(worker)).toBe(0);
    });

    it('never overlaps heartbeats, even when one takes longer than the interval', async () => {
      const watch = newWatch();
      // Heartbeats every 50 ms, each held up for 120 ms at the database.
      watch.beforeAnnounce = () => new Promise((resolve) => setTimeout(resolve, 120));
      const worker = workerOn(watched(services.db, watch), 150);
      worker.start();
      await until('four heartbeats', () => watch.beatsDone >= 4);
      await worker.stop();
      expect(watch.mostBeatsAtOnce).toBe(1);
      // Strictly one after another: every start follows the previous end.
      const announcements = watch.events.filter((event) => event.startsWith('announce'));
      expect(announcements).toEqual(Array.from({ length: announcements.length }, (_, index) => (index % 2 === 0 ? 'announce:start' : 'announce:end')));
      expect(watch.events.at(-1)).toBe('retire');
    });

    it('stop() lets the run in hand finish, heartbeating its lease for longer than the lease lasts', async () => {
      const receiver = await startHoldingReceiver();
      try {
        const { id: flowId } = await services.flows.import(invoiceFlow(receiver.url, { timeoutMs: 20_000 }));
        const { runId } = await services.runs.start({ flowId, input: { order: { id: 'STOP-1', total: 3 } } });
        const watch = newWatch();
        const leaseMs = 300;
        const worker = workerOn(watched(services.db, watch), leaseMs);
        worker.start();
        await receiver.firstCall;

        let stopped = false;
        const stopping = worker.stop().then(() => (stopped = true));
        // Enough heartbeats while stopping that the lease, left alone, would have lapsed.
        const beatsAtStop = watch.beatsDone;
        await until('heartbeats spanning more than one lease', () => watch.beatsDone >= beatsAtStop + Math.ceil(leaseMs / 100) + 1);
        expect(stopped).toBe(false);
        const held = await getRun(services.db, runId);
        expect(held?.status).toBe('running');
        expect(held?.leaseUntil).toBeGreaterThan(Date.now());

        receiver.answer();
        await stopping;
        expect(worker.activeCount()).toBe(0);
        const run = await getRun(services.db, runId);
        expect(run?.status).toBe('succeeded');
        // Leased once: the lease never lapsed, so nobody could have taken the run over.
        expect(run?.leaseFence).toBe(1);
        expect(watch.events.at(-1)).toBe('retire');
      } finally {
        await receiver.close();
      }
    });
  });
}
