/**
 * Scale-out on PostgreSQL: an API process and four worker processes share one database.
 * 1,000 queued runs are each executed by exactly one worker at a time — one lease each in
 * the event log — every effect happens once, and SIGTERM stops workers cleanly.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../store/db.ts';
import { testDatabases } from '../testing/databases.ts';
import { invoiceFlow } from '../testing/engine-harness.ts';
import { inBatches } from '../testing/http-client.ts';
import { startReceiver } from '../testing/receiver.ts';
import { startServerProcess, trpc, type ServerProcess } from '../testing/server-process.ts';
import { until } from '../testing/wait-for.ts';

const postgres = testDatabases().find((kind) => kind.name === 'postgresql');

describe.runIf(postgres)('four workers on postgresql', () => {
  const processes: ServerProcess[] = [];
  afterAll(async () => {
    for (const process of processes) await process.kill();
  });

  it('executes 1,000 runs once each, one lease per run, and stops on SIGTERM', async () => {
    const database = await postgres!.create();
    const receiver = await startReceiver({ honoursKeys: true });
    try {
      const env = { DATABASE_URL: database.url, ONCEFLOW_POLL_MS: '1000', ONCEFLOW_WORKER_CONCURRENCY: '16' };
      const api = await startServerProcess(env, ['start', '--no-worker']);
      processes.push(api);
      const { id: flowId } = await trpc<{ id: string }>(api.url, 'flows.import', { document: invoiceFlow(receiver.url) });
      const runIds = await inBatches(Array.from({ length: 1000 }, (_, index) => index), 16, async (index) =>
        (await trpc<{ runId: string }>(api.url, 'runs.start', { flowId, input: { order: { id: `S-${index}`, total: 1 } } })).runId);

      const workers: ServerProcess[] = [];
      for (let index = 0; index < 4; index++) workers.push(await startServerProcess(env, ['worker']));
      processes.push(...workers);
      const db = await openDatabase(database.url);
      await until('every run to settle', async () => {
        const left = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE status IN ('queued', 'running', 'waiting')`);
        return Number(left?.n) === 0;
      }, { timeoutMs: 120_000, everyMs: 100 });
      const status = await trpc<{ workers: unknown[]; queueDepth: number }>(api.url, 'system.status', undefined, 'query');
      expect(status.workers).toHaveLength(4);
      expect(status.queueDepth).toBe(0);

      const runs = await db.all<{ id: string; status: string }>(`SELECT id, status FROM runs WHERE flow_id = ?`, [flowId]);
      expect(runs).toHaveLength(1000);
      expect(runs.every((run) => run.status === 'succeeded')).toBe(true);
      const leases = await db.all<{ run_id: string; data: string }>(`SELECT run_id, data FROM timeline_events WHERE type = 'run.started' AND run_id IN (SELECT id FROM runs WHERE flow_id = ?)`, [flowId]);
      const perRun = new Map<string, string[]>();
      for (const lease of leases) perRun.set(lease.run_id, [...(perRun.get(lease.run_id) ?? []), (JSON.parse(lease.data) as { worker: string }).worker]);
      expect(perRun.size).toBe(1000);
      expect([...perRun.values()].every((owners) => owners.length === 1)).toBe(true);
      const byWorker = new Set([...perRun.values()].flat());
      expect(byWorker.size).toBeGreaterThanOrEqual(2);
      expect(new Set(runIds).size).toBe(1000);
      expect(receiver.effects.size).toBe(1000);
      expect([...receiver.effects.values()].every((count) => count === 1)).toBe(true);

      for (const worker of workers) worker.signal('SIGTERM');
      const codes = await Promise.all(workers.map((worker) => worker.exited));
      expect(codes).toEqual([0, 0, 0, 0]);
      const announced = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM workers`);
      expect(Number(announced?.n)).toBe(0);
      await db.close();
    } finally {
      await receiver.close();
      await database.drop();
    }
  }, 240_000);
});
