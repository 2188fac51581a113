/**
 * An alerting worker is SIGKILLed while sending: a real server process dies the moment the
 * chat receiver has the alert and before the sender recorded it
 * (`ONCEFLOW_CRASH_AT=after-act:alert`); a restarted process takes the alert's claim over
 * and sends it again under the same key, so the key-honouring receiver applies it once.
 * A chat that does not honour keys is never called twice: the alert is marked uncertain
 * and shown.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { invoiceFlow } from '../../testing/engine-harness.ts';
import { testDatabases } from '../../testing/databases.ts';
import { trpc } from '../../testing/server-process.ts';
import { useReceiver, useServerProcesses } from '../../testing/suite-fixtures.ts';
import { until } from '../../testing/wait-for.ts';

for (const kind of testDatabases()) {
  describe(`an alerting worker killed on ${kind.name}`, () => {
    const target = useReceiver({ honoursKeys: true });
    const chat = useReceiver({ honoursKeys: true });
    const plainChat = useReceiver({ honoursKeys: false });
    const { db, start, crashDuringRun } = useServerProcesses(kind);

    beforeAll(() => {
      target().behave = () => ({ kind: 'status', status: 400 });
    });

    it('while sending an alert, after the receiver got it and before it was recorded: the alert arrives once', async () => {
      const document = {
        ...invoiceFlow(target().url, { name: 'Order paid', retryMax: 0 }),
        settings: { alerts: { chat: { url: `${chat().url}/alerts`, keyHeader: 'Idempotency-Key' } } },
      };
      const { flowId, runId } = await crashDuringRun('after-act:alert', document, { order: { id: 'K-1', total: 3 } });
      // Killed after the receiver applied the alert; nothing recorded it as sent.
      expect(chat().calls).toHaveLength(1);
      expect(chat().effects.get(`${runId}:failed`)).toBe(1);
      const before = await db().get<{ status: string }>(`SELECT status FROM alert_outbox WHERE run_id = ?`, [runId]);
      expect(before?.status).toBe('sending');

      const restarted = await start();
      const sent = await until(() => 'the alert to be recorded as sent', async () => {
        const row = await db().get<{ status: string; attempts: number }>(`SELECT status, attempts FROM alert_outbox WHERE run_id = ?`, [runId]);
        return row?.status === 'sent' ? row : undefined;
      }, { timeoutMs: 20_000, everyMs: 50 });
      await restarted.kill();
      expect(sent.attempts).toBe(1);
      // Sent again under the same key, and applied once.
      expect(chat().calls).toHaveLength(2);
      expect(chat().calls.map((call) => call.key)).toEqual([`${runId}:failed`, `${runId}:failed`]);
      expect(chat().effects.get(`${runId}:failed`)).toBe(1);
      expect(chat().totalEffects()).toBe(1);
      expect((chat().calls[1]?.body as { text: string }).text).toContain(`/runs/${runId}`);
      const claim = await db().get<{ status: string; fence: number }>(`SELECT status, fence FROM claims WHERE scope = ? AND key = ?`, [`alerts:${flowId}`, `${runId}:failed`]);
      expect(claim).toMatchObject({ status: 'succeeded', fence: 2 });
    });

    it('the same crash with a chat that does not honour keys: called once, and the alert shows as uncertain', async () => {
      const document = {
        ...invoiceFlow(target().url, { name: 'Refund made', retryMax: 0 }),
        settings: { alerts: { chat: { url: `${plainChat().url}/alerts` } } },
      };
      const { runId } = await crashDuringRun('after-act:alert', document, { order: { id: 'K-2', total: 3 } });
      expect(plainChat().calls).toHaveLength(1);

      const restarted = await start();
      const shown = await until(() => 'the alert to be shown as uncertain', async () => {
        const list = await trpc<{ runId: string; status: string; problem: string }[]>(restarted.url, 'alerts.undelivered', { runId }, 'query');
        return list[0]?.status === 'uncertain' ? list[0] : undefined;
      }, { timeoutMs: 20_000, everyMs: 100 });
      await restarted.kill();
      expect(shown.problem).toContain('does not honour keys, so it was not sent again');
      expect(plainChat().calls).toHaveLength(1);
    });
  });
}
