/**
 * An alerting worker is SIGKILLed while sending: a real server process dies the moment the
 * chat receiver has the alert and before the sender recorded it
 * (`ONCEFLOW_CRASH_AT=after-act:alert`); a restarted process takes the alert's claim over
 * and sends it again under the same key, so the key-honouring receiver applies it once.
 * A chat that does not honour keys is never called twice: the alert is marked uncertain
 * and shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceFlow } from '../../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../../testing/databases.ts';
import { startReceiver, type Receiver } from '../../testing/receiver.ts';
import { startServerProcess, trpc, type ServerProcess } from '../../testing/server-process.ts';
import { until } from '../../testing/wait-for.ts';
import { openDatabase, type Db } from '../../store/db.ts';

for (const kind of testDatabases()) {
  describe(`an alerting worker killed on ${kind.name}`, () => {
    let database: TestDatabase;
    let db: Db;
    let target: Receiver;
    let chat: Receiver;
    let plainChat: Receiver;
    const processes: ServerProcess[] = [];
    const start = async (env: Record<string, string> = {}) => {
      const server = await startServerProcess({ DATABASE_URL: database.url, ONCEFLOW_LEASE_MS: '800', ONCEFLOW_POLL_MS: '30', ...env });
      processes.push(server);
      return server;
    };

    beforeAll(async () => {
      database = await kind.create();
      db = await openDatabase(database.url);
      target = await startReceiver({ honoursKeys: true });
      target.behave = () => ({ kind: 'status', status: 400 });
      chat = await startReceiver({ honoursKeys: true });
      plainChat = await startReceiver({ honoursKeys: false });
    });
    afterAll(async () => {
      for (const server of processes) await server.kill();
      await db?.close();
      await target?.close();
      await chat?.close();
      await plainChat?.close();
      await database?.drop();
    });

    it('while sending an alert, after the receiver got it and before it was recorded: the alert arrives once', async () => {
      const crashing = await start({ ONCEFLOW_CRASH_AT: 'after-act:alert' });
      const document = {
        ...invoiceFlow(target.url, { name: 'Order paid', retryMax: 0 }),
        settings: { alerts: { chat: { url: `${chat.url}/alerts`, keyHeader: 'Idempotency-Key' } } },
      };
      const { id: flowId } = await trpc<{ id: string }>(crashing.url, 'flows.import', { document });
      const { runId } = await trpc<{ runId: string }>(crashing.url, 'runs.start', { flowId, input: { order: { id: 'K-1', total: 3 } } });
      await crashing.exited;
      // Killed after the receiver applied the alert; nothing recorded it as sent.
      expect(chat.calls).toHaveLength(1);
      expect(chat.effects.get(`${runId}:failed`)).toBe(1);
      const before = await db.get<{ status: string }>(`SELECT status FROM alert_outbox WHERE run_id = ?`, [runId]);
      expect(before?.status).toBe('sending');

      const restarted = await start();
      const sent = await until(() => 'the alert to be recorded as sent', async () => {
        const row = await db.get<{ status: string; attempts: number }>(`SELECT status, attempts FROM alert_outbox WHERE run_id = ?`, [runId]);
        return row?.status === 'sent' ? row : undefined;
      }, { timeoutMs: 20_000, everyMs: 50 });
      await restarted.kill();
      expect(sent.attempts).toBe(1);
      // Sent again under the same key, and applied once.
      expect(chat.calls).toHaveLength(2);
      expect(chat.calls.map((call) => call.key)).toEqual([`${runId}:failed`, `${runId}:failed`]);
      expect(chat.effects.get(`${runId}:failed`)).toBe(1);
      expect(chat.totalEffects()).toBe(1);
      expect((chat.calls[1]?.body as { text: string }).text).toContain(`/runs/${runId}`);
      const claim = await db.get<{ status: string; fence: number }>(`SELECT status, fence FROM claims WHERE scope = ? AND key = ?`, [`alerts:${flowId}`, `${runId}:failed`]);
      expect(claim).toMatchObject({ status: 'succeeded', fence: 2 });
    });

    it('the same crash with a chat that does not honour keys: called once, and the alert shows as uncertain', async () => {
      const crashing = await start({ ONCEFLOW_CRASH_AT: 'after-act:alert' });
      const document = {
        ...invoiceFlow(target.url, { name: 'Refund made', retryMax: 0 }),
        settings: { alerts: { chat: { url: `${plainChat.url}/alerts` } } },
      };
      const { id: flowId } = await trpc<{ id: string }>(crashing.url, 'flows.import', { document });
      const { runId } = await trpc<{ runId: string }>(crashing.url, 'runs.start', { flowId, input: { order: { id: 'K-2', total: 3 } } });
      await crashing.exited;
      expect(plainChat.calls).toHaveLength(1);

      const restarted = await start();
      const shown = await until(() => 'the alert to be shown as uncertain', async () => {
        const list = await trpc<{ runId: string; status: string; problem: string }[]>(restarted.url, 'alerts.undelivered', { runId }, 'query');
        return list[0]?.status === 'uncertain' ? list[0] : undefined;
      }, { timeoutMs: 20_000, everyMs: 100 });
      await restarted.kill();
      expect(shown.problem).toContain('does not honour keys, so it was not sent again');
      expect(plainChat.calls).toHaveLength(1);
    });
  });
}
