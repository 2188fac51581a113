/**
 * Every review decision, followed by every way the same work can come back, counting the
 * calls that reach a receiver that honours keys and one that does not.
 *
 *   webhook ──▶ notify (plain receiver, acts then answers 500: uncertain)
 *                  │
 *                  ▼
 *               charge (receiver that honours Idempotency-Key)
 *
 * "It happened" and "do it now" settle the key; "Skip" only lets one run go on, so every
 * later run that meets the key stops for review and names the skip — it never acts on a guess.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewDecision } from './run-service.ts';
import type { RunRow } from './types.ts';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { readClaim } from '../store/claims.ts';

type FollowUp = 'rerun' | 'replay' | 'redelivery' | 'new event id' | 'second flow';

const DECISIONS: ReviewDecision[] = ['happened', 'do-it', 'skip'];
const FOLLOW_UPS: FollowUp[] = ['rerun', 'replay', 'redelivery', 'new event id', 'second flow'];

function ordersFlow(name: string, plainUrl: string, honouringUrl: string) {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: { id: 'evt_1', order: 'O-1' },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'notify', type: 'http.request', position: { x: 200, y: 0 }, data: {
        label: 'Tell the warehouse', sideEffect: true, key: '{{ trigger.body.order }}:notify', keyScope: 'orders-notify', onUncertain: 'review',
        timeoutMs: 2000, request: { method: 'POST', url: `${plainUrl}/notify`, body: '{"ref": "{{ trigger.body.order }}:notify"}' },
      } },
      { id: 'charge', type: 'http.request', position: { x: 400, y: 0 }, data: {
        label: 'Charge', sideEffect: true, key: '{{ trigger.body.order }}:charge', keyScope: 'orders-charge', receiverKeyHeader: 'Idempotency-Key',
        timeoutMs: 2000, request: { method: 'POST', url: `${honouringUrl}/charge`, body: '{"ref": "{{ trigger.body.order }}:charge"}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'notify' }, { id: 'e2', source: 'notify', target: 'charge' }],
  };
}

for (const kind of testDatabases()) {
  describe(`review decisions then the same work again, on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let plain: Receiver;
    let honouring: Receiver;
    let flowId: string;
    let secondFlowId: string;

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      plain = await startReceiver({ honoursKeys: false });
      honouring = await startReceiver({ honoursKeys: true });
      // The plain receiver acts on the first call for an order and then fails to confirm it.
      plain.behave = (call) => (plain.calls.filter((other) => other.ref === call.ref).length === 1 ? { kind: 'status', status: 500, act: true } : { kind: 'ok' });
      // The charge of a "rerun" order is refused once, so the first run fails after the decision.
      honouring.behave = (call) => (call.key?.includes('-rerun') && honouring.calls.filter((other) => other.key === call.key).length === 1 ? { kind: 'status', status: 400 } : { kind: 'ok' });
      flowId = await engine.publish(ordersFlow('Orders', plain.url, honouring.url));
      secondFlowId = await engine.publish(ordersFlow('Orders, second flow', plain.url, honouring.url));
    });
    afterAll(async () => {
      await engine?.close();
      await plain?.close();
      await honouring?.close();
      await database?.drop();
    });

    async function deliver(targetFlow: string, eventId: string, order: string) {
      const trigger = (await engine.services.flows.get(targetFlow)).triggers[0]!;
      return engine.services.webhooks.receive({
        hookId: trigger.hookId, contentType: 'application/json', headers: {}, rawBody: Buffer.from(JSON.stringify({ id: eventId, order })),
      });
    }
    const runId = (answer: { body: unknown }) => (answer.body as { runId: string }).runId;
    const plainCalls = (order: string) => plain.calls.filter((call) => call.ref === `${order}:notify`).length;
    const charges = (order: string) => honouring.effects.get(`${order}:charge`) ?? 0;

    async function message(run: RunRow): Promise<string> {
      const { timeline } = await engine.services.runs.get(run.id);
      return String(timeline.findLast((event) => event.type === 'step.uncertain')?.data?.message ?? '');
    }

    for (const decision of DECISIONS) {
      for (const followUp of FOLLOW_UPS) {
        it(`${decision}, then ${followUp}`, async () => {
          const order = `O-${decision}-${followUp.replaceAll(' ', '-')}`;
          const first = await engine.waitForRun(runId(await deliver(flowId, `evt-${order}`, order)));
          expect(first.status).toBe('needs_review');
          expect(plainCalls(order)).toBe(1);

          await engine.services.runs.resolve(first.id, 'notify', decision);
          const decided = await engine.waitForRun(first.id, followUp === 'rerun' ? ['failed'] : ['succeeded']);
          const callsAfterDecision = decision === 'do-it' ? 2 : 1;
          expect(plainCalls(order)).toBe(callsAfterDecision);
          const claim = await readClaim(engine.services.db, 'orders-notify', `${order}:notify`);
          expect(claim?.status).toBe(decision === 'skip' ? 'uncertain' : 'succeeded');

          let later: RunRow | undefined;
          if (followUp === 'rerun') {
            await engine.services.runs.rerun(decided.id);
            later = await engine.waitForRun(decided.id, ['succeeded', 'needs_review', 'failed']);
            expect(later.status).toBe('succeeded');
          } else if (followUp === 'replay') {
            later = await engine.waitForRun((await engine.services.runs.replay(first.id)).runId);
          } else if (followUp === 'redelivery') {
            const again = await deliver(flowId, `evt-${order}`, order);
            expect(again.status).toBe(200);
            expect(again.body).toMatchObject({ duplicate: true, runId: first.id });
          } else if (followUp === 'new event id') {
            later = await engine.waitForRun(runId(await deliver(flowId, `evt-${order}-again`, order)));
          } else {
            later = await engine.waitForRun(runId(await deliver(secondFlowId, `evt-${order}`, order)));
          }

          // Nothing reached the plain receiver again, and the charge happened once.
          expect(plainCalls(order)).toBe(callsAfterDecision);
          expect(charges(order)).toBe(1);
          if (later && followUp !== 'rerun') {
            if (decision === 'skip') {
              expect(later.status).toBe('needs_review');
              expect(await message(later)).toMatch(new RegExp(`^Run #${first.seq} skipped this on \\d{1,2} [A-Z][a-z]{2} UTC; it is not known whether it happened\\.`));
            } else {
              expect(later.status).toBe('succeeded');
              const { timeline } = await engine.services.runs.get(later.id);
              expect(timeline.filter((event) => event.type === 'step.duplicate').map((event) => event.nodeId)).toEqual(['notify', 'charge']);
            }
          }

          if (decision === 'skip' && later && followUp !== 'rerun') {
            // Skipping again keeps the key unknown and names the newer run; only "do it now" acts.
            await engine.services.runs.resolve(later.id, 'notify', 'skip');
            await engine.waitForRun(later.id, ['succeeded']);
            const third = await engine.waitForRun((await engine.services.runs.replay(first.id)).runId);
            expect(third.status).toBe('needs_review');
            expect(await message(third)).toMatch(new RegExp(`^Run #${later.seq} skipped this`));
            expect(plainCalls(order)).toBe(1);
            await engine.services.runs.resolve(third.id, 'notify', 'do-it');
            expect((await engine.waitForRun(third.id, ['succeeded'])).status).toBe('succeeded');
            expect(plainCalls(order)).toBe(2);
            expect(charges(order)).toBe(1);
          }
        });
      }
    }

    it('tells in the rerun preview that a skipped key waits for a decision', async () => {
      const order = 'O-preview';
      const first = await engine.waitForRun(runId(await deliver(flowId, `evt-${order}`, order)));
      await engine.services.runs.resolve(first.id, 'notify', 'skip');
      await engine.waitForRun(first.id, ['succeeded']);
      const replayed = await engine.waitForRun((await engine.services.runs.replay(first.id)).runId);
      const preview = await engine.services.runs.rerunPreview(replayed.id);
      const notify = preview.steps.find((step) => step.nodeId === 'notify');
      expect(notify?.action).toBe('review');
      expect(notify?.reason).toMatch(new RegExp(`^Waits for your decision: Run #${first.seq} skipped this on`));
    });
  });
}
