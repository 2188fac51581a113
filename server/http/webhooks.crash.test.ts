/**
 * Webhook ingestion while the server is SIGKILLed mid-way and restarted, with a sender that
 * retries whatever was not acknowledged: every acknowledged event has exactly one run, no
 * event is lost, nothing runs twice.
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
  describe(`webhooks through a crash on ${kind.name}`, () => {
    let database: TestDatabase;
    let db: Db;
    let receiver: Receiver;
    let server: ServerProcess;

    beforeAll(async () => {
      database = await kind.create();
      receiver = await startReceiver({ honoursKeys: true });
    });
    afterAll(async () => {
      await server?.kill();
      await db?.close();
      await receiver?.close();
      await database?.drop();
    });

    it('acknowledged events each have exactly one run and one effect after a SIGKILL mid-way', async () => {
      const port = String(await freePort());
      const env = { DATABASE_URL: database.url, PORT: port, ONCEFLOW_LEASE_MS: '1000', ONCEFLOW_POLL_MS: '20' };
      server = await startServerProcess(env);
      db = await openDatabase(database.url);
      const { id: flowId, triggers } = await trpc<{ id: string; triggers: { hookId: string }[] }>(server.url, 'flows.import', { document: webhookEffectFlow(receiver.url) });
      const url = `${server.url}/hooks/${triggers[0]!.hookId}`;

      const ids = Array.from({ length: 1000 }, (_, index) => `evt_${index}`);
      const random = seededRandom(7);
      const deliveries = [...ids, ...ids].sort(() => random() - 0.5);
      const acknowledged = new Map<string, Set<string>>();
      let sent = 0;
      let restarting: Promise<void> | null = null;
      const answers = await inBatches(deliveries, 16, async (id) => {
        for (;;) {
          if (++sent === 700 && !restarting) {
            restarting = (async () => {
              await server.kill();
              server = await startServerProcess(env);
            })();
          }
          try {
            const answer = await postJson(url, { id });
            if (answer.status === 200 || answer.status === 202) {
              const runs = acknowledged.get(id) ?? new Set<string>();
              runs.add(answer.body.runId as string);
              acknowledged.set(id, runs);
              return answer.status;
            }
          } catch {
            // Not acknowledged: a sender retries.
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
      await restarting;
      // A 202 lost with the killed process comes back as a 200 duplicate on retry.
      const created = answers.filter((status) => status === 202).length;
      expect(created).toBeLessThanOrEqual(1000);
      expect(created).toBeGreaterThanOrEqual(1000 - 16);
      expect(acknowledged.size).toBe(1000);
      for (const runs of acknowledged.values()) expect(runs.size).toBe(1);

      await until('every run to settle', async () => {
        const row = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE flow_id = ? AND status IN ('queued', 'running', 'waiting')`, [flowId]);
        return Number(row?.n) === 0;
      }, { timeoutMs: 60_000, everyMs: 100 });
      const rows = await db.all<{ id: string; event_id: string; status: string }>(`SELECT id, event_id, status FROM runs WHERE flow_id = ?`, [flowId]);
      expect(rows).toHaveLength(1000);
      expect(new Set(rows.map((row) => row.event_id)).size).toBe(1000);
      expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
      for (const row of rows) expect(acknowledged.get(row.event_id)).toEqual(new Set([row.id]));
      expect(receiver.effects.size).toBe(1000);
      expect([...receiver.effects.values()].every((count) => count === 1)).toBe(true);
    }, 240_000);
  });
}
