/**
 * The publish guard counts, for each side-effect step whose key changes, how many past
 * events would get a new key, keep theirs, or cannot fill a key in — checked against a
 * hand count of deliveries and runs with known inputs, on each database.
 *
 *   live:  hook ─▶ invoice (key {{ order.id }}:invoice) ─▶ notify (key {{ id }}:notify, own scope)
 *   draft: hook ─▶ invoice (key {{ order.ref }}:invoice) ─▶ notify (same key, scope "shared-notify")
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { KeyChangeNotConfirmedError } from './flow-service.ts';
import { summariseKeyChanges } from './publish-guard.ts';

function flowDocument(url: string, draft: boolean) {
  const step = (id: string, key: string, extra: Record<string, unknown> = {}) => ({
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: { label: id === 'invoice' ? 'Create invoice' : 'Tell the team', sideEffect: true, key, retry: { max: 0 }, timeoutMs: 2000, receiverKeyHeader: 'Idempotency-Key', request: { method: 'POST', url: `${url}/${id}` }, ...extra },
  });
  return {
    format: 'onceflow/v1',
    name: 'Guarded invoices',
    sampleInput: { id: 'evt_1', order: { id: '4417', ref: '4417' } },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      step('invoice', draft ? '{{ trigger.body.order.ref }}:invoice' : '{{ trigger.body.order.id }}:invoice'),
      step('notify', '{{ trigger.body.id }}:notify', draft ? { keyScope: 'shared-notify' } : {}),
    ],
    edges: [
      { id: 'e1', source: 'hook', target: 'invoice' },
      { id: 'e2', source: 'invoice', target: 'notify' },
    ],
  };
}

for (const kind of testDatabases()) {
  describe(`publish guard on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let receiver: Receiver;
    let flowId: string;
    let replayedRun: string;

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      receiver = await startReceiver({ honoursKeys: true });
      flowId = await engine.publish(flowDocument(receiver.url, false));
      const { hookId } = (await engine.services.flows.get(flowId)).triggers[0]!;
      const deliver = async (id: string, order: Record<string, string>) => {
        const answer = await engine.services.webhooks.receive({ hookId, contentType: 'application/json', headers: {}, rawBody: Buffer.from(JSON.stringify({ id, order })) });
        return (answer.body as { runId: string }).runId;
      };
      // Hand count for "Create invoice" (old key order.id, new key order.ref):
      for (let i = 0; i < 5; i++) await deliver(`same-${i}`, { id: `o${i}`, ref: `o${i}` }); // 5 unchanged
      const changedRuns: string[] = [];
      for (let i = 0; i < 4; i++) changedRuns.push(await deliver(`moved-${i}`, { id: `p${i}`, ref: `R${i}` })); // 4 changed
      for (let i = 0; i < 2; i++) await deliver(`noref-${i}`, { id: `q${i}` }); // 2 cannot fill the new key
      await deliver('noid-0', { ref: 'x0' }); // 1 could not fill the old key
      await deliver('same-0', { id: 'o0', ref: 'o0' }); // a repeated delivery: no new event
      const manual = await engine.services.runs.start({ flowId, input: { id: 'man-1', order: { id: 'm1', ref: 'M1' } } }); // 1 changed
      await engine.waitForRun(manual.runId);
      for (const runId of changedRuns) await engine.waitForRun(runId);
      replayedRun = (await engine.services.runs.replay(changedRuns[0]!)).runId; // a replay repeats an event: not counted
      await engine.waitForRun(replayedRun);
      // A test run keeps its keys apart from live ones: not a past event either.
      await engine.waitForRun((await engine.services.tests.start({ flowId, input: { id: 'test-1', order: { id: 't1', ref: 'T1' } } })).runId);
      // Another flow's events never count.
      const other = await engine.publish({ ...flowDocument(receiver.url, false), name: 'Other flow' });
      await engine.waitForRun((await engine.services.runs.start({ flowId: other, input: { id: 'other', order: { id: 'z', ref: 'y' } } })).runId);
      await engine.services.flows.saveDraft(flowId, flowDocument(receiver.url, true));
    });
    afterAll(async () => {
      await engine?.close();
      await receiver?.close();
      await database?.drop();
    });

    it('counts past events per changed step exactly as by hand', async () => {
      const summary = await engine.services.flows.keyChanges(flowId);
      expect(summary).toMatchObject({ liveVersion: 1, events: 13, limit: 1000 });
      const [invoice, notify] = summary.steps;
      expect(summary.steps.map((step) => step.nodeId)).toEqual(['invoice', 'notify']);
      expect(invoice).toMatchObject({
        label: 'Create invoice',
        live: { key: '{{ trigger.body.order.id }}:invoice', keyScope: null },
        draft: { key: '{{ trigger.body.order.ref }}:invoice', keyScope: null },
        changed: 5, unchanged: 5, draftFailed: 2, liveFailed: 1,
      });
      expect(invoice?.sentences).toEqual([
        '5 past events would get new keys and would act again if replayed or sent again.',
        '5 past events keep the same key, so they would still be stopped as duplicates.',
        '2 past events cannot fill in the new key (a field it uses is missing from them), so replayed they would stop at this step.',
        '1 past event could not fill in the old key either, so this step never acted for them.',
      ]);
      // Newest first: the manual run, then the deliveries whose key moved.
      expect(invoice?.examples).toEqual([
        { from: 'm1:invoice', to: 'M1:invoice' },
        { from: 'p3:invoice', to: 'R3:invoice' },
        { from: 'p2:invoice', to: 'R2:invoice' },
      ]);
      // A scope change moves every key, even with the same key text.
      expect(notify).toMatchObject({ changed: 13, unchanged: 0, draftFailed: 0, liveFailed: 0 });
      expect(notify?.examples[0]).toEqual({ from: 'man-1:notify', to: 'shared-notify / man-1:notify' });
    });

    it('reads only the newest events, up to its bound', async () => {
      const live = { version: 1, document: await engine.services.flows.export(flowId, 1) };
      const draft = await engine.services.flows.export(flowId);
      const summary = await summariseKeyChanges(engine.services.db, flowId, live, draft, 4);
      expect(summary.events).toBe(4);
      // The four newest events: the manual run (changed), noid-0 (no old key), noref-1 and noref-0 (no new key).
      expect(summary.steps[0]).toMatchObject({ changed: 1, unchanged: 0, draftFailed: 2, liveFailed: 1 });
    });

    it('refuses to publish a key change without a confirmation, in plain words', async () => {
      const refused = engine.services.flows.publish(flowId, 'admin');
      await expect(refused).rejects.toBeInstanceOf(KeyChangeNotConfirmedError);
      await expect(engine.services.flows.publish(flowId, 'admin')).rejects.toThrow(
        'This version changes the idempotency key of 2 steps. Create invoice: 5 past events would get new keys and would act again if replayed or sent again.',
      );
      expect((await engine.services.flows.versions(flowId)).map((version) => version.version)).toEqual([1]);
    });

    it('publishes once confirmed and records who confirmed what on the version', async () => {
      const published = await engine.services.flows.publish(flowId, 'admin', { confirmKeyChanges: true });
      expect(published.version).toBe(2);
      const [v2, v1] = await engine.services.flows.versions(flowId);
      expect(v1?.keyChanges).toBeNull();
      expect(v2?.keyChanges).toMatchObject({
        confirmedBy: 'admin',
        fromVersion: 1,
        events: 13,
        steps: [
          { nodeId: 'invoice', label: 'Create invoice', changed: 5, unchanged: 5, draftFailed: 2, liveFailed: 1 },
          { nodeId: 'notify', label: 'Tell the team', changed: 13, unchanged: 0, draftFailed: 0, liveFailed: 0 },
        ],
      });
      expect(v2?.keyChanges?.confirmedAt).toBeGreaterThan(0);
      // Nothing changed since: the next publish needs no confirmation and records none.
      expect((await engine.services.flows.keyChanges(flowId)).steps).toEqual([]);
      await engine.services.flows.publish(flowId, 'admin');
      expect((await engine.services.flows.versions(flowId))[0]).toMatchObject({ version: 3, keyChanges: null });
    });
  });
}
