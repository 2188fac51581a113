/** Schedules: two worker processes on one PostgreSQL database start exactly one run per fire time. */
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../store/db.ts';
import { testDatabases } from '../testing/databases.ts';
import { startServerProcess, trpc, type ServerProcess } from '../testing/server-process.ts';
import { until } from '../testing/wait-for.ts';

const postgres = testDatabases().find((kind) => kind.name === 'postgresql');

function everySecondFlow() {
  return {
    format: 'onceflow/v1',
    name: 'Every second',
    nodes: [
      { id: 'tick', type: 'trigger.schedule', position: { x: 0, y: 0 }, data: { cron: '* * * * * *' } },
      { id: 'note', type: 'transform', position: { x: 200, y: 0 }, data: { outputs: { at: '{{ trigger.body.scheduledFor }}' } } },
    ],
    edges: [{ id: 'e1', source: 'tick', target: 'note' }],
  };
}

describe.runIf(postgres)('schedules on postgresql with two workers', () => {
  const processes: ServerProcess[] = [];
  afterAll(async () => {
    for (const process of processes) await process.kill();
  });

  it('fires every second for 10 s with exactly one run per fire time', async () => {
    const database = await postgres!.create();
    const db = await openDatabase(database.url);
    try {
      const env = { DATABASE_URL: database.url, ONCEFLOW_POLL_MS: '20' };
      const api = await startServerProcess(env, ['start', '--no-worker']);
      processes.push(api);
      const workers = [await startServerProcess(env, ['worker']), await startServerProcess(env, ['worker'])];
      processes.push(...workers);
      // Both compete from the first fire on: each has announced itself with its first heartbeat.
      await until('both workers to announce themselves', async () => Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM workers`))?.n) === 2);
      const { id: flowId } = await trpc<{ id: string }>(api.url, 'flows.import', { document: everySecondFlow() });
      // Ten fire times, one a second.
      const started = async () => Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE flow_id = ?`, [flowId]))?.n);
      await until('ten scheduled runs', async () => (await started()) >= 10, { timeoutMs: 30_000, everyMs: 50 });
      for (const worker of workers) await worker.kill();

      const runs = await db.all<{ event_id: string; trigger_kind: string }>(`SELECT event_id, trigger_kind FROM runs WHERE flow_id = ?`, [flowId]);
      const fires = runs.map((run) => Date.parse(run.event_id.replace(/^schedule:/, ''))).sort((a, b) => a - b);
      expect(runs.every((run) => run.trigger_kind === 'schedule')).toBe(true);
      expect(new Set(runs.map((run) => run.event_id)).size).toBe(runs.length);
      expect(runs.length).toBeGreaterThanOrEqual(9);
      expect(runs.length).toBeLessThanOrEqual(12);
      // One run per second, none skipped in between.
      for (let index = 1; index < fires.length; index++) expect(fires[index]! - fires[index - 1]!).toBe(1000);
    } finally {
      await db.close();
      await database.drop();
    }
  }, 60_000);
});

describe('missed schedule fires', () => {
  it('catches up fires missed by under a minute, and runs only the latest after longer downtime', async () => {
    const { startEngine } = await import('../testing/engine-harness.ts');
    const { createSqliteDatabase } = await import('../testing/databases.ts');
    const { createScheduler } = await import('./scheduler.ts');
    const database = createSqliteDatabase();
    const engine = await startEngine(database.url);
    try {
      const { id: flowId } = await engine.services.flows.import({ ...everySecondFlow(), nodes: [
        { id: 'tick', type: 'trigger.schedule', position: { x: 0, y: 0 }, data: { cron: '*/20 * * * * *' } },
        everySecondFlow().nodes[1],
      ] });
      const created = Number((await engine.services.db.get<{ created_at: number }>(`SELECT created_at FROM triggers WHERE flow_id = ?`, [flowId]))!.created_at);
      let now = created;
      const clock = { now: () => now, sleep: async () => {} };
      const scheduler = createScheduler({ db: engine.services.db, clock, plans: engine.services.plans, log: engine.services.log, onQueued: () => {} });
      const fires = async () => (await engine.services.db.all<{ event_id: string }>(`SELECT event_id FROM runs WHERE flow_id = ? ORDER BY event_id`, [flowId])).map((row) => row.event_id);
      const step = (time: number) => Math.ceil((time + 1) / 20_000) * 20_000;
      const first = step(created);
      const iso = (time: number) => `schedule:${new Date(time).toISOString()}`;

      // 45 s after the first fire time: three fires missed by under a minute are each caught up.
      now = first + 45_000;
      await scheduler.tick();
      expect(await fires()).toEqual([first, first + 20_000, first + 40_000].map(iso));

      // Three hours later: only the latest missed fire runs, once, however often the tick runs.
      now += 3 * 3600_000;
      await scheduler.tick();
      await scheduler.tick();
      const after = await fires();
      expect(after).toHaveLength(4);
      expect(after.at(-1)).toBe(iso(Math.floor(now / 20_000) * 20_000));
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});
