/**
 * Cancelling a parent cancels the child runs it started, on each database, with the
 * children's side effects going to a real receiver on loopback:
 *
 *   parent: start ──► done (flow.run → quick, ends first) ──► call (flow.run → child)
 *   child:  start ──► invoice (side effect, slow receiver) ──► notify (side effect)
 *
 *   top ──► middle (waits for its own child) ──► grandchild (same shape as child)
 *
 * cancelled while the child's (or grandchild's) invoice acts: it finishes and is recorded,
 * notify never reaches the receiver, every run in between ends cancelled and says why, the
 * child that had already succeeded is left alone, and a replay starts a new child.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { parentFlow } from '../testing/flow-run-flows.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { until } from '../testing/wait-for.ts';
import { childRunsOf } from '../store/child-runs.ts';
import { readClaim } from '../store/claims.ts';
import { getRun } from '../store/runs.ts';

function sideEffect(id: string, label: string, url: string, x: number) {
  return {
    id, type: 'http.request', position: { x, y: 0 },
    data: {
      label, sideEffect: true, key: `{{ trigger.body.order.id }}:${id}`, receiverKeyHeader: 'Idempotency-Key', timeoutMs: 5000,
      request: { method: 'POST', url: `${url}/${id}`, headers: { 'content-type': 'application/json' }, body: `{"ref": "{{ trigger.body.order.id }}:${id}"}` },
    },
  };
}

/** start → invoice → notify, both to the receiver. */
function invoiceThenNotify(url: string, name: string) {
  return {
    format: 'onceflow/v1', name, sampleInput: { order: { id: '1' } },
    nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }, sideEffect('invoice', 'Create invoice', url, 200), sideEffect('notify', 'Notify team', url, 400)],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }, { id: 'e2', source: 'invoice', target: 'notify' }],
  };
}

/** start → a transform: a child that ends at once. */
const quickFlow = {
  format: 'onceflow/v1', name: 'Quick', sampleInput: { order: { id: '1' } },
  nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }, { id: 'shape', type: 'transform', position: { x: 200, y: 0 }, data: { outputs: { order: '{{ trigger.body.order.id }}' } } }],
  edges: [{ id: 'e1', source: 'start', target: 'shape' }],
};

/** start → done (runs `quickId`) → call (runs `childId`). */
function twoChildren(quickId: string, childId: string) {
  const runFlow = (id: string, flowId: string, x: number) => ({ id, type: 'flow.run', position: { x, y: 0 }, data: { label: id === 'call' ? 'Bill the order' : 'Check the order', flowId, input: '{{ trigger.body }}', key: `{{ trigger.body.order.id }}:${id}` } });
  return {
    format: 'onceflow/v1', name: 'Two children', sampleInput: { order: { id: '1' } },
    nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }, runFlow('done', quickId, 200), runFlow('call', childId, 400)],
    edges: [{ id: 'e1', source: 'start', target: 'done' }, { id: 'e2', source: 'done', target: 'call' }],
  };
}

for (const kind of testDatabases()) {
  describe(`cancelling a parent run on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let receiver: Receiver;

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      receiver = await startReceiver({ honoursKeys: true });
    });
    afterAll(async () => {
      await engine?.close();
      await receiver?.close();
      await database?.drop();
    });

    const timeline = async (runId: string) => (await engine.services.runs.get(runId)).timeline;
    const cancellations = async (runId: string) => (await timeline(runId)).filter((event) => event.type === 'run.cancelled').map((event) => event.data);
    /** Resolves when the receiver gets the invoice call; it answers a second later. */
    const invoiceArrives = () => {
      receiver.reset();
      receiver.behave = (call) => (call.path === '/invoice' ? { kind: 'slow', delayMs: 1000 } : { kind: 'ok' });
      return new Promise<void>((resolve) => (receiver.onCall = (call) => call.path === '/invoice' && resolve()));
    };
    /** The acting step's late record is in and no worker holds a run any more. */
    const settled = async (runId: string) => {
      await until('the late record of the acting step', async () => ((await cancellations(runId)).length === 2 ? true : undefined));
      await until('the worker to let go of its runs', () => engine.worker.activeCount() === 0);
    };

    it('cancels the child it waits for, whose acting step finishes and whose next step never runs; the child that succeeded is left alone', async () => {
      const quickId = await engine.publish(quickFlow);
      const childId = await engine.publish(invoiceThenNotify(receiver.url, 'Slow child'));
      const parentId = await engine.publish(twoChildren(quickId, childId));
      const arrived = invoiceArrives();
      const { runId } = await engine.services.runs.start({ flowId: parentId, input: { order: { id: 'C1' } } });
      await arrived;
      const parent = await engine.waitForRun(runId, ['waiting']);
      const [child] = await childRunsOf(engine.services.db, runId).then((runs) => runs.filter((run) => run.flowId === childId));
      const [quick] = await childRunsOf(engine.services.db, runId).then((runs) => runs.filter((run) => run.flowId === quickId));
      expect(quick?.status).toBe('succeeded');

      const answer = await engine.services.runs.cancel(runId, 'admin');
      // The parent is parked on its child, not acting; its one child still going is cancelled.
      expect(answer).toMatchObject({ seq: parent.seq, acting: [], notRun: 0, children: 1 });
      expect((await getRun(engine.services.db, child!.id))?.status).toBe('cancelled');

      await settled(child!.id);
      const [first, late] = await cancellations(child!.id);
      expect(first).toMatchObject({ by: 'admin', parentRunId: runId, parentSeq: parent.seq, previousStatus: 'running', acting: ['invoice'], notRun: 1 });
      expect(late).toMatchObject({ by: 'admin', parentRunId: runId, parentSeq: parent.seq, acting: ['invoice'], finished: 'succeeded', notRun: 1 });
      const view = await engine.services.runs.get(child!.id);
      expect(view.run.status).toBe('cancelled');
      expect(view.steps.find((step) => step.nodeId === 'invoice')?.status).toBe('succeeded');
      expect(view.timeline.filter((event) => event.nodeId === 'notify')).toEqual([]);
      expect(receiver.calls.map((call) => call.path)).toEqual(['/invoice']);

      // The child that had already ended keeps its ending and its timeline.
      expect((await getRun(engine.services.db, quick!.id))?.status).toBe('succeeded');
      expect(await cancellations(quick!.id)).toEqual([]);
      expect((await readClaim(engine.services.db, `${parentId}:done`, 'C1:done'))?.status).toBe('succeeded');

      // A replay of the parent starts a new child: the invoice already done comes back as a
      // duplicate, and notify acts once.
      receiver.onCall = undefined;
      const replay = await engine.services.runs.replay(runId);
      expect((await engine.waitForRun(replay.runId)).status).toBe('succeeded');
      const [again] = await childRunsOf(engine.services.db, replay.runId);
      expect(again).toMatchObject({ flowId: childId, status: 'succeeded' });
      expect((await timeline(again!.id)).filter((event) => event.nodeId === 'invoice').map((event) => event.type)).toEqual(['step.started', 'step.duplicate']);
      expect(receiver.calls.map((call) => call.path)).toEqual(['/invoice', '/notify']);
      expect(receiver.effects.get('C1:invoice')).toBe(1);
    });

    it('cancels the grandchild too: the middle run never wakes, the grandchild stops after its acting step', async () => {
      const grandId = await engine.publish(invoiceThenNotify(receiver.url, 'Slow grandchild'));
      const middleId = await engine.publish(parentFlow(grandId, { name: 'Middle' }));
      const topId = await engine.publish(parentFlow(middleId, { name: 'Top' }));
      const arrived = invoiceArrives();
      const { runId } = await engine.services.runs.start({ flowId: topId, input: { order: { id: 'G1' } } });
      await arrived;
      const top = await engine.waitForRun(runId, ['waiting']);
      const [middle] = await childRunsOf(engine.services.db, runId);
      const [grand] = await childRunsOf(engine.services.db, middle!.id);
      await engine.waitForRun(middle!.id, ['waiting']);

      expect(await engine.services.runs.cancel(runId, 'ops')).toMatchObject({ acting: [], children: 2 });
      expect((await getRun(engine.services.db, middle!.id))?.status).toBe('cancelled');
      expect((await getRun(engine.services.db, grand!.id))?.status).toBe('cancelled');
      expect(await cancellations(middle!.id)).toEqual([expect.objectContaining({ by: 'ops', parentRunId: runId, parentSeq: top.seq, previousStatus: 'waiting', acting: [], notRun: 1 })]);

      await settled(grand!.id);
      expect((await cancellations(grand!.id))[0]).toMatchObject({ by: 'ops', parentRunId: middle!.id, parentSeq: middle!.seq, previousStatus: 'running', acting: ['invoice'] });
      expect(receiver.calls.map((call) => call.path)).toEqual(['/invoice']);
      // The middle run was not woken by its child's end: its step after the wait never ran.
      const middleView = await engine.services.runs.get(middle!.id);
      expect(middleView.run.status).toBe('cancelled');
      expect(middleView.timeline.filter((event) => event.nodeId === 'after')).toEqual([]);
      expect(middleView.timeline.filter((event) => event.type === 'run.started')).toHaveLength(1);

      // Nothing is left to cancel: a second cancel is refused and touches no child.
      await expect(engine.services.runs.cancel(runId, 'ops')).rejects.toThrow('is already cancelled, so there is nothing to cancel.');
      expect(await cancellations(middle!.id)).toHaveLength(1);
    });

    it('a held child never starts, a failed child its flow would rerun is not rerun, and a child that ended for good is left alone', async () => {
      receiver.reset();
      receiver.onCall = undefined;
      receiver.behave = () => ({ kind: 'ok' });

      // Held: the child's flow is paused, so the child waits to start; resumed after the cancel, it never does.
      const heldId = await engine.publish(invoiceThenNotify(receiver.url, 'Paused child'));
      await engine.services.pause.pause(heldId, 'ops');
      const heldParent = await engine.publish(parentFlow(heldId, { name: 'Parent of paused' }));
      const { runId: first } = await engine.services.runs.start({ flowId: heldParent, input: { order: { id: 'H1' } } });
      await engine.waitForRun(first, ['waiting']);
      const [held] = await childRunsOf(engine.services.db, first);
      expect(held?.status).toBe('held');
      expect(await engine.services.runs.cancel(first, 'ops')).toMatchObject({ children: 1 });
      expect(await cancellations(held!.id)).toEqual([expect.objectContaining({ previousStatus: 'held', parentRunId: first, notRun: 2 })]);
      expect(await engine.services.pause.resume(heldId, 'ops')).toMatchObject({ released: 0 });

      // Failed, with an automatic rerun to come: the parent waits for it; cancelled, it is never rerun.
      receiver.behave = (call) => (call.path === '/invoice' ? { kind: 'status', status: 422 } : { kind: 'ok' });
      const retriedId = await engine.publish({ ...invoiceThenNotify(receiver.url, 'Retried child'), settings: { retryFailedRuns: ['1m'] } });
      const retriedParent = await engine.publish(parentFlow(retriedId, { name: 'Parent of retried' }));
      const { runId: second } = await engine.services.runs.start({ flowId: retriedParent, input: { order: { id: 'F1' } } });
      const retried = await until('the child to fail with a rerun to come', async () => {
        const [child] = await childRunsOf(engine.services.db, second);
        return child?.status === 'failed' && (await getRun(engine.services.db, second))?.status === 'waiting' ? child : undefined;
      });
      expect(await engine.services.runs.cancel(second, 'ops')).toMatchObject({ children: 1 });
      expect((await getRun(engine.services.db, retried.id))?.status).toBe('cancelled');
      expect(await cancellations(retried.id)).toEqual([expect.objectContaining({ previousStatus: 'failed', parentRunId: second })]);
      expect(await engine.services.autoReruns.runDue(Date.now() + 2 * 60_000)).toBe(0);

      // Failed for good: the parent failed with it; cancelling the failed parent leaves the child as it ended.
      const pickyId = await engine.publish(invoiceThenNotify(receiver.url, 'Picky child'));
      const pickyParent = await engine.publish(parentFlow(pickyId, { name: 'Parent of picky' }));
      const failed = await engine.runAndWait(pickyParent, { order: { id: 'P1' } });
      expect(failed.status).toBe('failed');
      const [picky] = await childRunsOf(engine.services.db, failed.id);
      expect(picky?.status).toBe('failed');
      expect(await engine.services.runs.cancel(failed.id, 'ops')).toMatchObject({ children: 0 });
      expect((await getRun(engine.services.db, picky!.id))?.status).toBe('failed');
      expect(await cancellations(picky!.id)).toEqual([]);

      await until('the worker to let go of its runs', () => engine.worker.activeCount() === 0);
      expect(receiver.calls.map((call) => call.path)).toEqual(['/invoice', '/invoice']);
    });
  });
}
