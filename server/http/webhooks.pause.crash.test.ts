/**
 * The big pause case of issue #15, with a real server process: pause a flow, send 500
 * deliveries (a fifth of them repeats), SIGKILL the server while paused, restart it, send
 * the rest, then Resume. Expected: nothing ran while paused, exactly one run per event id,
 * each side effect once at a real receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../chaos/random.ts';
import { openDatabase, type Db } from '../store/db.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { inBatches, postJson } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { freePort, startServerProcess, trpc, type ServerProcess } from '../testing/server-process.ts';
import { until } from '../testing/wait-for.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';

for (const kind of testDatabases()) {
  describe(`a paused flow through a crash on ${kind.name}`, () => {
    let database: TestDatabase;
    let db: Db;
    let receiver: Receiver;
    let server: ServerProcess;

    beforeAll(async () => {
      database = await kind.create();
      receiver = await startReceiver({ honoursKeys: false });
    });
    afterAll(async () => {
      await server?.kill();
      await db?.close();
      await receiver?.close();
      await database?.drop();
    });

    it('500 deliveries (20 % repeats) and a SIGKILL while paused: after Resume, one run and one effect per event id', async () => {
      const port = String(await freePort());
      const env = { DATABASE_URL: database.url, PORT: port, ONCEFLOW_LEASE_MS: '1000', ONCEFLOW_POLL_MS: '20' };
      server = await startServerProcess(env);
      db = await openDatabase(database.url);
      const { id: flowId, triggers } = await trpc<{ id: string; triggers: { hookId: string }[] }>(server.url, 'flows.import', { document: webhookEffectFlow(receiver.url) });
      const url = `${server.url}/hooks/${triggers[0]!.hookId}`;
      await trpc(server.url, 'flows.pause', { id: flowId });

      const ids = Array.from({ length: 400 }, (_, index) => `evt_${index}`);
      const random = seededRandom(15);
      const repeats = Array.from({ length: 100 }, () => ids[Math.floor(random() * ids.length)]!);
      const deliveries = [...ids, ...repeats].sort(() => random() - 0.5);
      const acknowledged = new Map<string, Set<string>>();
      let sent = 0;
      let restarting: Promise<void> | null = null;
      await inBatches(deliveries, 8, async (id) => {
        for (;;) {
          if (++sent === 250 && !restarting) {
            restarting = (async () => {
              await server.kill();
              server = await startServerProcess(env);
            })();
          }
          try {
            const answer = await postJson(url, { id });
            if (answer.status === 200 || answer.status === 202) {
              acknowledged.set(id, (acknowledged.get(id) ?? new Set<string>()).add(answer.body.runId as string));
              return;
            }
          } catch {
            // Not acknowledged: a sender retries.
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
      await restarting;
      expect(acknowledged.size).toBe(400);
      for (const runs of acknowledged.values()) expect(runs.size).toBe(1);

      // Still paused after the restart: every run is held, none started, nothing was sent.
      const state = await trpc<{ paused: boolean; waiting: number }>(server.url, 'flows.pauseState', { id: flowId }, 'query');
      expect(state).toMatchObject({ paused: true, waiting: 400 });
      const started = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE flow_id = ? AND (status <> 'held' OR started_at IS NOT NULL)`, [flowId]);
      expect(Number(started?.n)).toBe(0);
      expect(receiver.calls).toHaveLength(0);

      await trpc(server.url, 'flows.resume', { id: flowId });
      await until('every run to settle', async () => {
        const row = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE flow_id = ? AND status IN ('queued', 'running', 'waiting', 'held')`, [flowId]);
        return Number(row?.n) === 0;
      }, { timeoutMs: 90_000, everyMs: 100 });
      const rows = await db.all<{ id: string; event_id: string; status: string }>(`SELECT id, event_id, status FROM runs WHERE flow_id = ?`, [flowId]);
      expect(rows).toHaveLength(400);
      expect(new Set(rows.map((row) => row.event_id)).size).toBe(400);
      expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
      for (const row of rows) expect(acknowledged.get(row.event_id)).toEqual(new Set([row.id]));
      expect(receiver.effects.size).toBe(400);
      expect([...receiver.effects.values()].every((count) => count === 1)).toBe(true);
    }, 240_000);
  });
}
