/**
 * Webhook intake over real HTTP on each database: deduplication under load, bad input,
 * and out-of-order events guarded by a state transition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { seededRandom } from '../chaos/random.ts';
import { hookUrl, startApp, waitForRunStatus, waitUntilSettled } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { inBatches, postJson, postRaw } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { paymentEventsFlow, webhookEffectFlow } from '../testing/webhook-flows.ts';

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let index = items.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [items[index], items[other]] = [items[other]!, items[index]!];
  }
  return items;
}

for (const kind of testDatabases()) {
  describe(`webhooks on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let receiver: Receiver;

    beforeAll(async () => {
      database = await kind.create();
      server = await startApp(database.url);
      receiver = await startReceiver({ honoursKeys: true });
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await database?.drop();
    });

    it('10,000 shuffled deliveries of 5,000 ids, 32 at a time: one run and one effect per id', async () => {
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      const ids = Array.from({ length: 5000 }, (_, index) => `evt_${index}`);
      const deliveries = shuffle([...ids, ...ids], seededRandom(42));
      const answers = await inBatches(deliveries, 32, (id) => postJson(url, { id, amount: 1 }));

      const firstRun = new Map<string, string>();
      const accepted = new Map<string, number>();
      deliveries.forEach((id, index) => {
        const answer = answers[index]!;
        expect([200, 202]).toContain(answer.status);
        if (answer.status === 202) {
          accepted.set(id, (accepted.get(id) ?? 0) + 1);
          firstRun.set(id, answer.body.runId as string);
        }
      });
      expect(accepted.size).toBe(5000);
      expect([...accepted.values()].every((count) => count === 1)).toBe(true);
      deliveries.forEach((id, index) => {
        const answer = answers[index]!;
        if (answer.status === 200) {
          expect(answer.body.duplicate).toBe(true);
          expect(answer.body.runId).toBe(firstRun.get(id));
        }
      });

      await waitUntilSettled(server, flowId, 5000, 120_000);
      const runs = await server.services.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE flow_id = ? AND status = 'succeeded'`, [flowId]);
      expect(Number(runs?.n)).toBe(5000);
      expect(receiver.effects.size).toBe(5000);
      expect([...receiver.effects.values()].every((count) => count === 1)).toBe(true);
      const duplicates = await server.services.db.get<{ n: number }>(`SELECT COALESCE(SUM(duplicates), 0) AS n FROM inbound_events WHERE hook_id = ?`, [url.split('/').at(-1)]);
      expect(Number(duplicates?.n)).toBe(5000);
    }, 240_000);

    it('shows a repeated delivery on the original run and in the inbox', async () => {
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      const first = await postJson(url, { id: 'evt_repeat' });
      await postJson(url, { id: 'evt_repeat' });
      const third = await postJson(url, { id: 'evt_repeat' });
      expect(first.status).toBe(202);
      expect(third).toEqual({ status: 200, body: { duplicate: true, runId: first.body.runId } });
      const run = await server.services.runs.get(first.body.runId as string);
      expect(run.timeline.filter((event) => event.type === 'webhook.duplicate')).toHaveLength(2);
      expect(run.timeline.filter((event) => event.type === 'webhook.received')).toHaveLength(1);
      const inbox = await server.services.inbox.list(flowId);
      expect(inbox.deliveries).toHaveLength(1);
      expect(inbox.deliveries[0]!.status).toBe('duplicate ×2');

      await waitForRunStatus(server, first.body.runId as string);
      const { runId: replayId } = await server.services.inbox.replay(inbox.deliveries[0]!.id);
      const replayed = await waitForRunStatus(server, replayId);
      expect(replayed.replayOf).toBe(first.body.runId);
      const replayView = await server.services.runs.get(replayId);
      expect(replayView.timeline.map((event) => event.type)).toContain('step.duplicate');
      expect(receiver.effects.get('evt_repeat:effect')).toBe(1);
    });

    it('refuses bad input, storing nothing but a counted rejection', async () => {
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      const hookId = url.split('/').at(-1)!;
      const countRuns = async () => Number((await server.services.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE flow_id = ?`, [flowId]))?.n);
      const countRejections = async (id: string) => Number((await server.services.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_rejections WHERE hook_id = ?`, [id]))?.n);

      const tooBig = await postRaw(url, JSON.stringify({ id: 'big', pad: 'x'.repeat(1024 * 1024) }).slice(0, 1024 * 1024 + 1));
      expect(tooBig.status).toBe(413);
      const wrongType = await postRaw(url, 'id=1', { 'content-type': 'text/plain' });
      expect(wrongType.status).toBe(415);
      const malformed = await postRaw(url, '{"id": ');
      expect(malformed.status).toBe(400);
      expect(String(malformed.body.error)).toMatch(/not valid JSON/);
      const noId = await postJson(url, { other: 1 });
      expect(noId.status).toBe(400);
      expect(String(noId.body.error)).toContain('trigger.body.id');
      const unknown = await postJson(`${server.url}/hooks/not-a-real-hook-id-at-all`, { id: 'x' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe('No webhook has the id not-a-real-h…; check the URL against the one shown on the webhook trigger in the editor.');
      expect((await postJson(`${server.url}/hooks/gone`, { id: 'x' })).body.error).toMatch(/^No webhook has the id gone; check the URL/);

      expect(await countRuns()).toBe(0);
      expect(await countRejections(hookId)).toBe(4);
      expect(await countRejections('(unknown)')).toBeGreaterThanOrEqual(1);
      const stored = await server.services.db.all<{ reason: string }>(`SELECT reason FROM webhook_rejections WHERE hook_id = ?`, [hookId]);
      expect(stored.map((row) => row.reason).join(' ')).not.toContain('xxxx');
      const form = await postRaw(url, 'id=form_1&x=2', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(form.status).toBe(202);
    });

    it('answers a delivery the same whichever way its address is spelled', async () => {
      // The usual spelling is answered ahead of Fastify's router (hook-fast-path.ts); other
      // spellings of the same route reach hooks.ts through it. One event, one run.
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      const hookId = url.split('/').at(-1)!;
      const encoded = `${server.url}/%68ooks/${hookId}`;
      const first = await postJson(encoded, { id: 'evt_spelled', amount: 1 });
      expect(first.status).toBe(202);
      const again = await postJson(`${url}?source=retry`, { id: 'evt_spelled', amount: 1 });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ duplicate: true, runId: first.body.runId });
      // A slash at the end, taken ahead of the router and through it: the same webhook.
      for (const spelled of [`${url}/`, `${encoded}/`, `${url}/?source=retry`]) {
        expect((await postJson(spelled, { id: 'evt_spelled', amount: 1 })).body).toEqual({ duplicate: true, runId: first.body.runId });
      }
      const tooBig = await postRaw(encoded, 'x'.repeat(1024 * 1024 + 1));
      expect(tooBig.status).toBe(413);
      expect(String(tooBig.body.error)).toContain('larger than 1 MiB');
      expect((await postRaw(encoded, 'id=1', { 'content-type': 'text/plain' })).status).toBe(415);
      expect((await postRaw(url, 'id=1', { 'content-type': 'text/plain' })).status).toBe(415);
      await waitForRunStatus(server, first.body.runId as string);
      expect(receiver.effects.get('evt_spelled:effect')).toBe(1);
    });

    it('applies out-of-order payment events against the current state of the invoice', async () => {
      receiver.reset();
      const { id: flowId } = await server.services.flows.import(paymentEventsFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      const send = async (id: string, invoice: string, status: string) => {
        const answer = await postJson(url, { id, type: `invoice.${status}`, data: { id: invoice, status } });
        return waitForRunStatus(server, answer.body.runId as string);
      };
      const state = async (invoice: string) => (await server.services.db.get<{ state: string }>(`SELECT state FROM entity_states WHERE entity = ?`, [`invoice:${invoice}`]))?.state;

      // paid before created: ends paid; the late created is stale and notifies nothing.
      await send('e1', 'in_A', 'paid');
      const late = await send('e2', 'in_A', 'created');
      expect(await state('in_A')).toBe('paid');
      const lateView = await server.services.runs.get(late.id);
      expect(lateView.timeline.find((event) => event.type === 'step.skipped' && event.nodeId === 'state')?.data).toMatchObject({ reason: 'stale' });
      expect(lateView.steps.find((step) => step.nodeId === 'notify')?.status).toBe('skipped');
      expect(receiver.effects.get('in_A:created:notify')).toBeUndefined();
      expect(receiver.effects.get('in_A:paid:notify')).toBe(1);

      // refunded then paid: ends refunded.
      await send('e3', 'in_B', 'refunded');
      await send('e4', 'in_B', 'paid');
      expect(await state('in_B')).toBe('refunded');
      expect(receiver.effects.get('in_B:paid:notify')).toBeUndefined();

      // Two concurrent events for one entity never both apply from the same state.
      const answers = await Promise.all(['e5', 'e6', 'e7', 'e8'].map((id) => postJson(url, { id, data: { id: 'in_C', status: 'paid' } })));
      const runs = await Promise.all(answers.map((answer) => waitForRunStatus(server, answer.body.runId as string)));
      const applied = await Promise.all(runs.map(async (run) => (await server.services.runs.get(run.id)).steps.find((step) => step.nodeId === 'state')?.status));
      expect(applied.filter((status) => status === 'succeeded')).toHaveLength(1);
      expect(applied.filter((status) => status === 'skipped')).toHaveLength(3);
      expect(receiver.effects.get('in_C:paid:notify')).toBe(1);
    });
  });
}
