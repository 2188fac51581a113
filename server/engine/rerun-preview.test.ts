/**
 * The rerun preview's words match what happened in the run: a step that never began
 * "runs for the first time", only a step that began before "acts again", and a step a
 * person recorded as done says it was their decision — not "already finished".
 *
 *   start ──▶ invoice (plain receiver) ──▶ notify (honours keys) ──▶ thanks (honours keys) ──▶ after (transform)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';

function chainFlow(plainUrl: string, honouringUrl: string) {
  const effect = (id: string, label: string, url: string, keyHeader: boolean) => ({
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: {
      label, sideEffect: true, key: `{{ trigger.body.order }}:${id}`, onUncertain: 'review', timeoutMs: 2000, retry: { max: 0 },
      ...(keyHeader ? { receiverKeyHeader: 'Idempotency-Key' } : {}),
      request: { method: 'POST', url: `${url}/${id}`, body: `{"ref": "{{ trigger.body.order }}:${id}"}` },
    },
  });
  return {
    format: 'onceflow/v1',
    name: 'Preview words',
    sampleInput: { order: 'O-1' },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      effect('invoice', 'Create invoice', plainUrl, false),
      effect('notify', 'Tell the warehouse', honouringUrl, true),
      effect('thanks', 'Say thanks', honouringUrl, true),
      { id: 'after', type: 'transform', position: { x: 0, y: 0 }, data: { label: 'Note it', outputs: { done: 'yes' } } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'invoice' },
      { id: 'e2', source: 'invoice', target: 'notify' },
      { id: 'e3', source: 'notify', target: 'thanks' },
      { id: 'e4', source: 'thanks', target: 'after' },
    ],
  };
}

for (const kind of testDatabases()) {
  describe(`rerun preview words, on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let plain: Receiver;
    let honouring: Receiver;
    let flowId: string;

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      plain = await startReceiver({ honoursKeys: false });
      honouring = await startReceiver({ honoursKeys: true });
      flowId = await engine.publish(chainFlow(plain.url, honouring.url));
    });
    afterAll(async () => {
      await engine?.close();
      await plain?.close();
      await honouring?.close();
      await database?.drop();
    });

    it('says a step that never began runs for the first time, and one that failed acts again', async () => {
      plain.behave = () => ({ kind: 'ok' });
      honouring.behave = (call) => (call.path === '/notify' ? { kind: 'status', status: 422 } : { kind: 'ok' });
      const run = await engine.runAndWait(flowId, { order: 'P-1' });
      expect(run.status).toBe('failed');

      const preview = await engine.services.runs.rerunPreview(run.id);
      const step = (id: string) => preview.steps.find((candidate) => candidate.nodeId === id)!;
      expect(step('invoice')).toMatchObject({ action: 'skip', reason: 'Skipped: it already finished in attempt 1.' });
      expect(step('notify')).toMatchObject({ action: 'act', ranBefore: true });
      expect(step('notify').reason).toMatch(/^Acts again: nothing was done yet with key P-1:notify \(the last try was refused\)\.$/);
      expect(step('thanks')).toMatchObject({ action: 'act', ranBefore: false });
      expect(step('thanks').reason).toBe('Runs for the first time: nothing was done yet with key P-1:thanks; this run did not get to it before.');
      expect(step('after')).toMatchObject({ action: 'act', ranBefore: false });
      expect(step('after').reason).toMatch(/^Runs for the first time/);
      for (const shown of preview.steps) expect(shown.ranBefore || !/again/i.test(shown.reason)).toBe(true);
    });

    it('names a step recorded as done by a decision as such, not as finished', async () => {
      // The plain receiver acts and then fails to confirm: the outcome is unknown.
      plain.behave = () => ({ kind: 'status', status: 500, act: true });
      honouring.behave = (call) => (call.path === '/notify' ? { kind: 'status', status: 422 } : { kind: 'ok' });
      const run = await engine.runAndWait(flowId, { order: 'P-2' });
      expect(run.status).toBe('needs_review');
      await engine.services.runs.resolve(run.id, 'invoice', 'happened');
      expect((await engine.waitForRun(run.id, ['failed'])).status).toBe('failed');

      const preview = await engine.services.runs.rerunPreview(run.id);
      const invoice = preview.steps.find((step) => step.nodeId === 'invoice')!;
      expect(invoice.action).toBe('skip');
      expect(invoice.reason).toBe('Skipped: recorded as done by your decision (attempt 1) that it happened.');
      expect(invoice.reason).not.toContain('finished');
    });
  });
}
