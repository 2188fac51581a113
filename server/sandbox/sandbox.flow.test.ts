/**
 * Flows against the sandbox receivers on each database, with the sandbox set to "act,
 * then drop the answer": a receiver that honours keys (payments) is retried with the same
 * key and charges once; one that does not (the mail server) leaves the step uncertain
 * for a person, and "it happened" sends nothing more. Chat messages are posted once per
 * key across replays.
 *
 *   start (manual) ──► pay  (http.request → /sandbox/payments/charges, Idempotency-Key)
 *   start (manual) ──► mail (email.send → sandbox SMTP)
 *   start (manual) ──► chat (message.post → /sandbox/chat/messages)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeEmailTransports } from '../engine/steps/email-send.ts';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startSandboxApp, type SandboxApp } from '../testing/sandbox-app.ts';
import type { Sandbox } from './plugin.ts';

function oneStepFlow(name: string, step: Record<string, unknown>) {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: { order: { id: '4417', total: 120 } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { position: { x: 240, y: 0 }, ...step },
    ],
    edges: [{ id: 'e1', source: 'start', target: step.id }],
  };
}

const retry = { max: 2, backoff: 'fixed', delayMs: 20 };

for (const kind of testDatabases()) {
  describe(`flows against the sandbox on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let sandbox: Sandbox;
    let served: SandboxApp;
    let base: string;

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      served = await startSandboxApp({ smtp: true });
      ({ sandbox, base } = served);
    });
    beforeEach(() => {
      sandbox.reset();
      sandbox.settings.reset();
    });
    afterAll(async () => {
      await engine?.close();
      closeEmailTransports();
      await served?.close();
      await database?.drop();
    });

    it('payments that honour the key: the answer is dropped, the retry with the same key charges nothing more', async () => {
      sandbox.settings.configure('payments', { dropAnswer: true });
      const flowId = await engine.publish(oneStepFlow('Charge', {
        id: 'pay', type: 'http.request',
        data: {
          label: 'Charge the card', key: '{{ trigger.body.order.id }}:charge', receiverKeyHeader: 'Idempotency-Key',
          timeoutMs: 2000, retry,
          request: {
            method: 'POST', url: `${base}/payments/charges`, headers: { 'content-type': 'application/json' },
            body: '{"ref": "{{ trigger.body.order.id }}", "amount": {{ trigger.body.order.total }}, "currency": "eur"}',
          },
        },
      }));
      const run = await engine.runAndWait(flowId, { order: { id: 'P-1', total: 120 } });

      expect(run.status).toBe('succeeded');
      expect(sandbox.ledger.effectsFor('payments', 'P-1:charge')).toBe(1);
      expect(sandbox.ledger.effects('payments')).toHaveLength(1);
      expect(sandbox.ledger.entries('payments').map((entry) => entry.outcome)).toEqual(['created_unanswered', 'replayed']);
      expect(new Set(sandbox.ledger.entries('payments').map((entry) => entry.key))).toEqual(new Set(['P-1:charge']));
      expect(await engine.eventTypes(run.id)).toContain('step.retry_scheduled');
      const output = (await engine.services.runs.get(run.id)).steps.find((step) => step.nodeId === 'pay')?.output as { body: { id: string } };
      expect(output.body.id).toBe(sandbox.ledger.effects('payments')[0]!.objectId);
    });

    it('email, which honours nothing: the answer is dropped, the step is uncertain, and "it happened" sends nothing more', async () => {
      sandbox.settings.configure('email', { dropAnswer: true });
      const flowId = await engine.publish(oneStepFlow('Receipt', {
        id: 'mail', type: 'email.send',
        data: {
          label: 'Send the receipt', key: 'receipt-{{ trigger.body.order.id }}', timeoutMs: 2000, retry,
          smtp: { host: '127.0.0.1', port: sandbox.smtp!.port, secure: false, user: 'shop', password: 'anything' },
          from: 'shop@example.test', to: 'ann@example.test',
          subject: 'Receipt for order {{ trigger.body.order.id }}', text: 'Total: {{ trigger.body.order.total }}',
        },
      }));
      const run = await engine.runAndWait(flowId, { order: { id: 'E-1', total: 30 } });

      expect(run.status).toBe('needs_review');
      expect(await engine.eventTypes(run.id)).toContain('step.uncertain');
      expect(sandbox.ledger.summary('email')).toMatchObject({ arrivals: 1, effects: 1 });
      expect(sandbox.ledger.effectsFor('email', 'receipt-E-1')).toBe(1);

      sandbox.settings.configure('email', { dropAnswer: false });
      await engine.services.runs.resolve(run.id, 'mail', 'happened');
      const resolved = await engine.waitForRun(run.id, ['succeeded', 'failed']);
      expect(resolved.status).toBe('succeeded');
      expect(sandbox.ledger.summary('email')).toMatchObject({ arrivals: 1, effects: 1 });
    });

    it('chat messages: one per key across replays', async () => {
      const flowId = await engine.publish(oneStepFlow('Announce', {
        id: 'chat', type: 'message.post',
        data: {
          label: 'Tell the team', key: 'paid-{{ trigger.body.order.id }}', timeoutMs: 2000, retry,
          url: `${base}/chat/messages`, text: 'Order {{ trigger.body.order.id }} was paid',
        },
      }));
      const runs = [];
      for (const id of ['M-1', 'M-2']) {
        const first = await engine.runAndWait(flowId, { order: { id, total: 1 } });
        const { runId } = await engine.services.runs.replay(first.id);
        runs.push(first, await engine.waitForRun(runId));
      }

      expect(runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
      expect(sandbox.ledger.effects('chat').map((entry) => (entry.data as { text: string }).text)).toEqual(['Order M-1 was paid', 'Order M-2 was paid']);
      for (const replay of [runs[1]!, runs[3]!]) expect(await engine.eventTypes(replay.id)).toContain('step.duplicate');
      const output = (await engine.services.runs.get(runs[0]!.id)).steps.find((step) => step.nodeId === 'chat')?.output;
      expect(output).toMatchObject({ status: 200, body: 'ok' });
    });
  });
}
