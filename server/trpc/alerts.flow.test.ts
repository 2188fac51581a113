/**
 * Alerts end to end on each database, with a real chat receiver and a real mail server on
 * loopback: a failed run and a run that needs review each alert once with a link to the
 * run; ten failures at once make one gathered message; refused webhooks over the
 * threshold alert once; a delivery that fails shows through the API and is retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, invoiceFlow, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { startEchoMailServer, type EchoMailServer } from '../testing/echo-receivers.ts';
import { until } from '../testing/wait-for.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';
import { appRouter } from './router.ts';
import { closeEmailTransports } from '../engine/steps/email-send.ts';
import type { AlertSender } from '../engine/alerts/sender.ts';
import type { RunRow } from '../engine/types.ts';
import { createSweeper } from '../engine/sweeper.ts';

const PUBLIC_URL = 'https://onceflow.example.test';

/** A flow whose one step is refused by the receiver (the run fails), alerting in chat. */
function failingFlow(target: Receiver, chat: Receiver, name: string) {
  const flow = invoiceFlow(target.url, { name, retryMax: 0 });
  return { ...flow, settings: { alerts: { chat: { url: `${chat.url}/alerts`, keyHeader: 'Idempotency-Key' } } } };
}

for (const kind of testDatabases()) {
  describe(`alerts on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let sender: AlertSender;
    let target: Receiver;
    let chat: Receiver;
    let mail: EchoMailServer;
    const caller = () => appRouter.createCaller({ services: engine.services, user: 'ops@example.test' });
    const chatTexts = (flowName: string) => chat.calls.map((call) => (call.body as { text: string }).text).filter((text) => text.includes(`*${flowName}*`));

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url, { ONCEFLOW_PUBLIC_URL: PUBLIC_URL });
      sender = engine.services.createAlertSender({ everyMs: 50, retryBaseMs: 150, refusalCheckMs: 50, gatherEveryMs: 1500 });
      sender.start();
      target = await startReceiver({ honoursKeys: true });
      target.behave = () => ({ kind: 'status', status: 400 });
      chat = await startReceiver({ honoursKeys: true });
      mail = await startEchoMailServer();
      await engine.services.secrets.set('SMTP_PASSWORD', 'mail-pass-4417');
    });
    afterAll(async () => {
      await sender?.stop();
      await engine?.close();
      closeEmailTransports();
      await target?.close();
      await chat?.close();
      await mail?.close();
      await database?.drop();
    });

    it('a failed run alerts once in chat with a link to the run; a rerun that fails again does not alert again', async () => {
      const flowId = await engine.publish(failingFlow(target, chat, 'Order paid'));
      const run = await engine.runAndWait(flowId, { order: { id: 'A-1', total: 5 } });
      expect(run.status).toBe('failed');
      await until(() => 'the chat alert', async () => chatTexts('Order paid').length === 1 || undefined, { timeoutMs: 10_000 });
      const [text] = chatTexts('Order paid');
      expect(text).toContain('A run of *Order paid* failed.');
      expect(text).toContain(`${PUBLIC_URL}/runs/${run.id}`);
      expect(chat.calls.at(-1)?.key).toBe(`${run.id}:failed`);

      await engine.services.runs.rerun(run.id);
      expect((await engine.waitForRun(run.id, ['failed'])).status).toBe('failed');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(chatTexts('Order paid')).toHaveLength(1);
      expect(await caller().alerts.ofRun({ runId: run.id })).toEqual([expect.objectContaining({ kind: 'failed', status: 'sent', attempts: 1 })]);
    });

    it('a run that needs review alerts once by email, with the password from the secret store (default alerts)', async () => {
      await caller().alerts.saveDefaults({ settings: {
        on: { failed: false, needsReview: true },
        email: { to: 'ops@example.test', smtp: { host: mail.host, port: mail.port, user: 'robot', password: '{{ secrets.SMTP_PASSWORD }}' } },
      } });
      const plain = await startReceiver({ honoursKeys: false });
      plain.behave = () => ({ kind: 'drop' });
      try {
        const flowId = await engine.publish(invoiceFlow(plain.url, { name: 'Refund issued', keyHeader: false }));
        const run = await engine.runAndWait(flowId, { order: { id: 'R-1', total: 5 } });
        expect(run.status).toBe('needs_review');
        await until(() => 'the email alert', async () => mail.accepted.some((subject) => subject.includes('Refund issued')) || undefined, { timeoutMs: 10_000 });
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(mail.accepted.filter((subject) => subject.includes('Refund issued'))).toEqual(['A run of "Refund issued" needs review']);
        // A failure of that flow is not wanted by the default: nothing is sent for it.
        plain.behave = () => ({ kind: 'status', status: 400 });
        const failed = await engine.runAndWait(flowId, { order: { id: 'R-2', total: 5 } });
        expect(failed.status).toBe('failed');
        await until(() => 'the unwanted alert to be dropped', async () => (await caller().alerts.ofRun({ runId: failed.id }))[0]?.status === 'dropped' || undefined, { timeoutMs: 10_000 });
        expect(mail.accepted.filter((subject) => subject.includes('Refund issued'))).toHaveLength(1);
        // The sweeper forgets the dropped alert after a day and keeps the sent one.
        const { db, log } = engine.services;
        await createSweeper({ db, log, clock: { ...engine.services.clock, now: () => Date.now() + 2 * 86_400_000 } }).sweep();
        expect(await caller().alerts.ofRun({ runId: failed.id })).toEqual([]);
        expect(await caller().alerts.ofRun({ runId: run.id })).toEqual([expect.objectContaining({ kind: 'needs_review', status: 'sent' })]);
      } finally {
        await plain.close();
      }
    });

    it('ten runs failing at once make one gathered message linking to the filtered runs list', async () => {
      const flowId = await engine.publish(failingFlow(target, chat, 'Invoice sent'));
      const runs = await Promise.all(Array.from({ length: 10 }, (_, index) => engine.runAndWait(flowId, { order: { id: `G-${index}`, total: 1 } })));
      expect(runs.every((run) => run.status === 'failed')).toBe(true);
      await until(() => 'the gathered alert', async () => chatTexts('Invoice sent').length >= 1 || undefined, { timeoutMs: 10_000 });
      await until(() => 'every alert settled', async () => {
        const views = await Promise.all(runs.map((run) => caller().alerts.ofRun({ runId: run.id })));
        return views.every((list) => list[0]?.status === 'sent') || undefined;
      }, { timeoutMs: 10_000 });
      const texts = chatTexts('Invoice sent');
      expect(texts).toHaveLength(1);
      expect(texts[0]).toMatch(/^10 runs of \*Invoice sent\* failed in the last \d+ seconds?\./);
      expect(texts[0]).toContain(`${PUBLIC_URL}/runs?flow=${flowId}&status=failed`);
      expect(chat.calls.at(-1)?.key).toMatch(/^gathered:failed:/);
    });

    it('runs failing one after another: the first three alone, then the rest gathered, each run alerted once', async () => {
      const flowId = await engine.publish(failingFlow(target, chat, 'Label printed'));
      const runs: RunRow[] = [];
      for (let index = 0; index < 8; index++) {
        runs.push(await engine.runAndWait(flowId, { order: { id: `S-${index}`, total: 1 } }));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await until(() => 'every alert sent', async () => {
        const views = await Promise.all(runs.map((run) => caller().alerts.ofRun({ runId: run.id })));
        return views.every((list) => list[0]?.status === 'sent') || undefined;
      }, { timeoutMs: 15_000 });
      const texts = chatTexts('Label printed');
      const single = texts.filter((text) => text.startsWith('A run of'));
      const gathered = texts.map((text) => /^(\d+) runs of \*Label printed\* failed/.exec(text)).filter((match) => match !== null);
      expect(single.length).toBeLessThanOrEqual(3);
      expect(gathered.length).toBeGreaterThanOrEqual(1);
      expect(single.length + gathered.reduce((sum, match) => sum + Number(match[1]), 0)).toBe(8);
      expect(texts.length).toBeLessThan(8);
    });

    it('refused webhook deliveries over the threshold alert once', async () => {
      const flow = webhookEffectFlow(target.url);
      const flowId = await engine.publish({ ...flow, name: 'Stripe events', settings: { alerts: {
        on: { failed: false, needsReview: false, webhookRefusals: { over: 3, within: '5m' } },
        chat: { url: `${chat.url}/alerts`, keyHeader: 'Idempotency-Key' },
      } } });
      const hook = await engine.services.db.get<{ hook_id: string }>('SELECT hook_id FROM triggers WHERE flow_id = ?', [flowId]);
      const refuse = () => engine.services.webhooks.receive({ hookId: hook!.hook_id, contentType: 'text/plain', rawBody: Buffer.from('nope'), headers: {} });
      for (let index = 0; index < 3; index++) expect((await refuse()).status).toBe(415);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(chatTexts('Stripe events')).toHaveLength(0);
      for (let index = 0; index < 3; index++) await refuse();
      await until(() => 'the refusal alert', async () => chatTexts('Stripe events').length === 1 || undefined, { timeoutMs: 10_000 });
      await refuse();
      await new Promise((resolve) => setTimeout(resolve, 600));
      const texts = chatTexts('Stripe events');
      expect(texts).toHaveLength(1);
      const counted = /^Webhooks of \*Stripe events\* were refused: (\d+) deliveries refused in the last 5m \(more than 3\)\./.exec(texts[0] ?? '');
      expect(Number(counted?.[1])).toBeGreaterThan(3);
      expect(texts[0]).toContain(`${PUBLIC_URL}/flows/${flowId}/inbox`);
    });

    it('an alert whose delivery fails shows through the API with the reason, and is retried until it goes through', async () => {
      const flowId = await engine.publish(failingFlow(target, chat, 'Payout made'));
      chat.behave = (call) => (JSON.stringify(call.body).includes('Payout made') ? { kind: 'status', status: 404 } : { kind: 'ok' });
      const run = await engine.runAndWait(flowId, { order: { id: 'P-1', total: 9 } });
      const [shown] = await until(() => 'the failed delivery to show', async () => {
        const list = await caller().alerts.undelivered({});
        return list.some((alert) => alert.runId === run.id) ? list.filter((alert) => alert.runId === run.id) : undefined;
      }, { timeoutMs: 10_000 });
      expect(shown).toMatchObject({ kind: 'failed', status: 'pending', flowId });
      expect(shown?.problem).toMatch(/404/);
      expect(shown?.nextTryAt).toBeGreaterThan(shown!.createdAt);
      // Retried with backoff while the chat keeps refusing, then delivered once it accepts.
      await until(() => 'a second try', async () => ((await caller().alerts.ofRun({ runId: run.id }))[0]?.attempts ?? 0) >= 2 || undefined, { timeoutMs: 10_000 });
      chat.behave = () => ({ kind: 'ok' });
      await until(() => 'the alert to be sent', async () => (await caller().alerts.ofRun({ runId: run.id }))[0]?.status === 'sent' || undefined, { timeoutMs: 10_000 });
      expect(await caller().alerts.undelivered({ runId: run.id })).toEqual([]);
      const accepted = chat.calls.filter((call) => JSON.stringify(call.body).includes('Payout made'));
      expect(accepted.length).toBeGreaterThanOrEqual(3);
      expect(new Set(accepted.map((call) => call.key))).toEqual(new Set([`${run.id}:failed`]));
      expect(chat.effects.get(`${run.id}:failed`)).toBe(1);
    });
  });
}
