/**
 * The step protocol against real receivers on loopback, on each database: duplicates,
 * concurrency, key conflicts, missing paths, definitive and ambiguous failures, review.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceFlow, startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { readClaim } from '../store/claims.ts';

for (const kind of testDatabases()) {
  describe(`step protocol on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let honouring: Receiver;
    let plain: Receiver;

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      honouring = await startReceiver({ honoursKeys: true });
      plain = await startReceiver({ honoursKeys: false });
    });
    afterAll(async () => {
      await engine?.close();
      await honouring?.close();
      await plain?.close();
      await database?.drop();
    });

    it('runs the same input twice: one effect, the second run is a duplicate linking the first', async () => {
      honouring.reset();
      const flowId = await engine.publish(invoiceFlow(honouring.url));
      const first = await engine.runAndWait(flowId, { order: { id: 'A-1', total: 5 } });
      const second = await engine.runAndWait(flowId, { order: { id: 'A-1', total: 5 } });
      expect(first.status).toBe('succeeded');
      expect(second.status).toBe('succeeded');
      expect(honouring.effects.get('A-1:invoice')).toBe(1);
      expect(honouring.calls).toHaveLength(1);

      const view = await engine.services.runs.get(second.id);
      const duplicate = view.timeline.find((event) => event.type === 'step.duplicate');
      expect(duplicate?.data?.runId).toBe(first.id);
      const firstView = await engine.services.runs.get(first.id);
      const firstOutput = firstView.steps.find((step) => step.nodeId === 'invoice')?.output as { body: { id: string } };
      expect(firstOutput.body.id).toMatch(/^obj_/);
      expect(view.steps.find((step) => step.nodeId === 'invoice')?.output).toEqual(firstOutput);
      expect(view.steps.find((step) => step.nodeId === 'invoice')?.status).toBe('duplicate');
    });

    it('lets exactly one of 50 concurrent runs with the same key act', async () => {
      plain.reset();
      plain.behave = () => ({ kind: 'slow', delayMs: 50 });
      const flowId = await engine.publish(invoiceFlow(plain.url, { keyHeader: false }));
      const started = await Promise.all(
        Array.from({ length: 50 }, () => engine.services.runs.start({ flowId, input: { order: { id: 'C-50', total: 1 } } })),
      );
      const runs = await Promise.all(started.map(({ runId }) => engine.waitForRun(runId)));
      plain.behave = () => ({ kind: 'ok' });
      expect(runs.map((run) => run.status)).toEqual(Array(50).fill('succeeded'));
      expect(plain.effects.get('C-50:invoice')).toBe(1);
      expect(plain.calls).toHaveLength(1);
    });

    it('refuses the same key with a different input as a key conflict without calling the receiver', async () => {
      honouring.reset();
      const flowId = await engine.publish(invoiceFlow(honouring.url, { key: '{{ trigger.body.order.id }}' }));
      const first = await engine.runAndWait(flowId, { order: { id: 'K-1', total: 10 } });
      const second = await engine.runAndWait(flowId, { order: { id: 'K-1', total: 99 } });
      expect(first.status).toBe('succeeded');
      expect(second.status).toBe('failed');
      expect(honouring.calls).toHaveLength(1);
      const view = await engine.services.runs.get(second.id);
      const conflict = view.timeline.find((event) => event.type === 'step.key_conflict');
      expect(conflict).toBeDefined();
      expect(second.error).toContain('Its body was {"ref": "K-1:invoice", "total": 10} and is now {"ref": "K-1:invoice", "total": 99}');
    });

    it('fails a step whose template names a missing path, naming it, and leaves no claim', async () => {
      honouring.reset();
      const flowId = await engine.publish(invoiceFlow(honouring.url));
      const run = await engine.runAndWait(flowId, { order: { total: 3 } });
      expect(run.status).toBe('failed');
      expect(run.error).toContain('trigger.body.order.id');
      const claims = await engine.services.db.all(`SELECT * FROM claims WHERE owner_run_id = ?`, [run.id]);
      expect(claims).toHaveLength(0);
      expect(honouring.calls).toHaveLength(0);
    });

    it('marks a definitive 4xx as a failed claim, and a rerun after the fix acts exactly once', async () => {
      honouring.reset();
      honouring.behave = () => ({ kind: 'status', status: 400 });
      const flowId = await engine.publish(invoiceFlow(honouring.url));
      const run = await engine.runAndWait(flowId, { order: { id: 'D-4', total: 1 } });
      expect(run.status).toBe('failed');
      const claim = await readClaim(engine.services.db, `${flowId}:invoice`, 'D-4:invoice');
      expect(claim?.status).toBe('failed');
      expect(honouring.effects.size).toBe(0);

      honouring.behave = () => ({ kind: 'ok' });
      await engine.services.runs.rerun(run.id);
      const rerun = await engine.waitForRun(run.id, ['succeeded', 'failed', 'needs_review']);
      expect(rerun.status).toBe('succeeded');
      expect(rerun.attempt).toBe(2);
      expect(honouring.effects.get('D-4:invoice')).toBe(1);
      expect((await readClaim(engine.services.db, `${flowId}:invoice`, 'D-4:invoice'))?.status).toBe('succeeded');
    });

    it('retries a timeout with the same key when the receiver honours it: one effect, run succeeded', async () => {
      honouring.reset();
      honouring.behave = (_call, n) => (n === 1 ? { kind: 'slow', delayMs: 600 } : { kind: 'ok' });
      const flowId = await engine.publish(invoiceFlow(honouring.url, { timeoutMs: 200 }));
      const run = await engine.runAndWait(flowId, { order: { id: 'T-6', total: 1 } });
      honouring.behave = () => ({ kind: 'ok' });
      expect(run.status).toBe('succeeded');
      expect(honouring.calls.length).toBeGreaterThanOrEqual(2);
      expect(new Set(honouring.calls.map((call) => call.key))).toEqual(new Set(['T-6:invoice']));
      expect(honouring.effects.get('T-6:invoice')).toBe(1);
      expect(await engine.eventTypes(run.id)).toContain('step.retry_scheduled');
    });

    it('asks a person when a receiver that does not honour keys times out; "it happened" finishes without a call', async () => {
      plain.reset();
      plain.behave = () => ({ kind: 'drop' });
      const flowId = await engine.publish(invoiceFlow(plain.url, { keyHeader: false }));
      const run = await engine.runAndWait(flowId, { order: { id: 'U-7', total: 1 } });
      expect(run.status).toBe('needs_review');
      expect(plain.calls).toHaveLength(1);
      expect(await engine.eventTypes(run.id)).toContain('step.uncertain');

      plain.behave = () => ({ kind: 'ok' });
      await engine.services.runs.resolve(run.id, 'invoice', 'happened');
      const resolved = await engine.waitForRun(run.id, ['succeeded', 'failed']);
      expect(resolved.status).toBe('succeeded');
      expect(plain.calls).toHaveLength(1);
      const resolvedEvent = (await engine.services.runs.get(run.id)).timeline.find((event) => event.type === 'step.resolved');
      expect(resolvedEvent?.data).toMatchObject({ decision: 'happened', by: 'admin' });
    });

    it('"do it" after an unknown outcome calls the receiver exactly once more', async () => {
      plain.reset();
      plain.behave = () => ({ kind: 'drop' });
      const flowId = await engine.publish(invoiceFlow(plain.url, { keyHeader: false }));
      const run = await engine.runAndWait(flowId, { order: { id: 'U-8', total: 1 } });
      expect(run.status).toBe('needs_review');
      plain.behave = () => ({ kind: 'ok' });
      await engine.services.runs.resolve(run.id, 'invoice', 'do-it');
      const resolved = await engine.waitForRun(run.id, ['succeeded', 'failed']);
      expect(resolved.status).toBe('succeeded');
      expect(plain.calls).toHaveLength(2);
    });

    it('reruns a failed run: checkpointed steps are skipped and no completed side effect acts again', async () => {
      honouring.reset();
      const flowId = await engine.publish({
        ...invoiceFlow(honouring.url),
        nodes: [
          ...invoiceFlow(honouring.url).nodes,
          { id: 'notify', type: 'http.request', position: { x: 600, y: 0 }, data: {
            sideEffect: true, key: '{{ trigger.body.order.id }}:notify', receiverKeyHeader: 'Idempotency-Key',
            retry: { max: 0 }, request: { method: 'POST', url: `${honouring.url}/notify`, body: '{"ref": "{{ trigger.body.order.id }}:notify"}' },
          } },
        ],
        edges: [...invoiceFlow(honouring.url).edges, { id: 'e3', source: 'after', target: 'notify' }],
      });
      honouring.behave = (call) => (call.path === '/notify' ? { kind: 'status', status: 422 } : { kind: 'ok' });
      const run = await engine.runAndWait(flowId, { order: { id: 'R-10', total: 1 } });
      expect(run.status).toBe('failed');
      honouring.behave = () => ({ kind: 'ok' });
      await engine.services.runs.rerun(run.id);
      const rerun = await engine.waitForRun(run.id, ['succeeded', 'failed']);
      expect(rerun.status).toBe('succeeded');
      const view = await engine.services.runs.get(run.id);
      const skipped = view.timeline.filter((event) => event.type === 'step.skipped' && event.attempt === 2).map((event) => event.nodeId);
      expect(skipped).toEqual(expect.arrayContaining(['invoice', 'after']));
      expect(honouring.calls.filter((call) => call.path === '/invoices')).toHaveLength(1);
      expect(honouring.effects.get('R-10:invoice')).toBe(1);
      expect(honouring.effects.get('R-10:notify')).toBe(1);
    });
  });
}
