/**
 * Cancel, on each database, against a real receiver on loopback:
 *
 *   start ──▶ invoice (side effect, slow receiver) ──▶ notify (side effect)
 *
 * cancelled while "invoice" acts: invoice finishes and is recorded, its claim settles,
 * notify never runs. Also: a queued run is never leased, a waiting delay never wakes, and a
 * cancel racing the run's own end leaves one consistent final state.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useEngine, useReceiver } from '../testing/suite-fixtures.ts';
import { until } from '../testing/wait-for.ts';
import { readClaim } from '../store/claims.ts';
import { getRun } from '../store/runs.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A receiver that holds its first answer (a refusal) until the test lets go, and counts calls. */
async function startGate() {
  let letGo: () => void = () => {};
  const released = new Promise<void>((resolve) => (letGo = resolve));
  let arrived: () => void = () => {};
  const firstCall = new Promise<void>((resolve) => (arrived = resolve));
  const paths: string[] = [];
  const server = createServer((request, response) => {
    paths.push(request.url ?? '');
    arrived();
    request.resume();
    void released.then(() => response.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"refused"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, firstCall, letGo,
    close: () => new Promise<void>((resolve) => { letGo(); server.close(() => resolve()); }),
  };
}

function sideEffect(id: string, label: string, url: string, x: number, honoured = true) {
  return {
    id, type: 'http.request', position: { x, y: 0 },
    data: {
      label, sideEffect: true, key: `{{ trigger.body.order }}:${id}`, ...(honoured ? { receiverKeyHeader: 'Idempotency-Key' } : {}), timeoutMs: 5000,
      request: { method: 'POST', url: `${url}/${id}`, headers: { 'content-type': 'application/json' }, body: `{"ref": "{{ trigger.body.order }}:${id}"}` },
    },
  };
}

/** start → [delay →] invoice → notify */
function flow(url: string, options: { delay?: string; name: string; honoured?: boolean }) {
  const nodes: unknown[] = [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }];
  const chain = ['start'];
  if (options.delay) {
    nodes.push({ id: 'wait', type: 'delay', position: { x: 100, y: 0 }, data: { label: 'Wait', for: options.delay } });
    chain.push('wait');
  }
  nodes.push(sideEffect('invoice', 'Create invoice', url, 200, options.honoured ?? true), sideEffect('notify', 'Notify team', url, 400));
  chain.push('invoice', 'notify');
  const edges = chain.slice(1).map((target, index) => ({ id: `e${index}`, source: chain[index]!, target }));
  return { format: 'onceflow/v1', name: options.name, sampleInput: { order: 'x' }, nodes, edges };
}

for (const kind of testDatabases()) {
  describe(`cancel on ${kind.name}`, () => {
    const receiver = useReceiver({ honoursKeys: true });
    const engine = useEngine(kind);

    const timeline = async (runId: string) => (await engine().services.runs.get(runId)).timeline;

    it('lets a step acting under its claim finish and be recorded; the step after it never runs', async () => {
      receiver().reset();
      receiver().behave = () => ({ kind: 'slow', delayMs: 700 });
      const called = new Promise<void>((resolve) => (receiver().onCall = () => resolve()));
      const flowId = await engine().publish(flow(receiver().url, { name: 'Slow invoice' }));
      const { runId } = await engine().services.runs.start({ flowId, input: { order: 'S-1' } });
      await called;
      await engine().services.runs.cancel(runId, 'admin');
      expect((await getRun(engine().services.db, runId))?.status).toBe('cancelled');

      // The receiver answers after the cancel; the worker records the answer, then stops.
      const cancellations = await until('the late record of the acting step', async () => {
        const events = (await timeline(runId)).filter((event) => event.type === 'run.cancelled');
        return events.length === 2 ? events : undefined;
      });
      await until('the worker to let go of the run', () => engine().worker.activeCount() === 0);
      expect(cancellations[0]?.data).toMatchObject({ by: 'admin', previousStatus: 'running', acting: ['invoice'], notRun: 1 });
      expect(cancellations[1]?.data).toMatchObject({ by: 'admin', acting: ['invoice'], finished: 'succeeded', notRun: 1 });

      const claim = await readClaim(engine().services.db, `${flowId}:invoice`, 'S-1:invoice');
      expect(claim?.status).toBe('succeeded');
      expect(await readClaim(engine().services.db, `${flowId}:notify`, 'S-1:notify')).toBeUndefined();
      const view = await engine().services.runs.get(runId);
      expect(view.run.status).toBe('cancelled');
      expect(view.steps.find((step) => step.nodeId === 'invoice')?.status).toBe('succeeded');
      expect(view.timeline.map((event) => event.type)).not.toContain('run.succeeded');
      expect(view.timeline.filter((event) => event.nodeId === 'notify')).toEqual([]);
      expect(receiver().calls.map((call) => call.path)).toEqual(['/invoice']);
    });

    it('never wakes a cancelled waiting run', async () => {
      receiver().reset();
      receiver().behave = () => ({ kind: 'ok' });
      receiver().onCall = undefined;
      const flowId = await engine().publish(flow(receiver().url, { name: 'Delayed', delay: '1s' }));
      const { runId } = await engine().services.runs.start({ flowId, input: { order: 'W-1' } });
      await engine().waitForRun(runId, ['waiting']);
      await engine().services.runs.cancel(runId, 'admin');
      // A run started after it with the same delay wakes and ends: the cancelled one was due first.
      const { runId: later } = await engine().services.runs.start({ flowId, input: { order: 'W-2' } });
      expect((await engine().waitForRun(later)).status).toBe('succeeded');
      const events = await timeline(runId);
      expect(events.filter((event) => event.type === 'run.started')).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: 'run.cancelled', data: { previousStatus: 'waiting', acting: [], notRun: 2 } });
      expect((await getRun(engine().services.db, runId))?.status).toBe('cancelled');
      expect(receiver().calls.map((call) => call.body)).toEqual([{ ref: 'W-2:invoice' }, { ref: 'W-2:notify' }]);
    });

    it('leaves one consistent final state when a cancel races the run\'s own end', async () => {
      receiver().reset();
      receiver().onCall = undefined;
      const flowId = await engine().publish(flow(receiver().url, { name: 'Race' }));
      const outcomes = { cancelled: 0, succeeded: 0 };
      for (let round = 0; round < 12; round++) {
        const order = `R-${round}`;
        receiver().behave = () => ({ kind: 'slow', delayMs: 30 });
        const notified = new Promise<void>((resolve) => (receiver().onCall = (call) => call.path === '/notify' && resolve()));
        const { runId } = await engine().services.runs.start({ flowId, input: { order } });
        await notified;
        // Lands around the moment the last step's answer is recorded and the run ends.
        await new Promise((resolve) => setTimeout(resolve, 24 + (round % 6) * 3));
        const cancel = await engine().services.runs.cancel(runId).then(() => 'cancelled' as const, (error: Error) => error.message);
        await until('the worker to let go of the run', () => engine().worker.activeCount() === 0);
        const view = await engine().services.runs.get(runId);
        const types = view.timeline.map((event) => event.type);
        if (cancel === 'cancelled') {
          expect(view.run.status).toBe('cancelled');
          expect(types).not.toContain('run.succeeded');
          outcomes.cancelled++;
        } else {
          expect(cancel).toMatch(/already succeeded/);
          expect(view.run.status).toBe('succeeded');
          expect(types).not.toContain('run.cancelled');
          outcomes.succeeded++;
        }
        // Either way both claims are settled and each side effect happened once.
        expect((await readClaim(engine().services.db, `${flowId}:invoice`, `${order}:invoice`))?.status).toBe('succeeded');
        expect((await readClaim(engine().services.db, `${flowId}:notify`, `${order}:notify`))?.status).toBe('succeeded');
        expect(view.steps.find((step) => step.nodeId === 'notify')?.status).toBe('succeeded');
      }
      expect(receiver().calls).toHaveLength(24);
      expect(outcomes.cancelled + outcomes.succeeded).toBe(12);
    });

    it('cancels a run that needs review: the unknown step stays unknown, nothing after it runs', async () => {
      receiver().reset();
      receiver().onCall = undefined;
      // A 500 from a receiver that does not honour keys: whether it acted is unknown.
      receiver().behave = () => ({ kind: 'status', status: 500 });
      const flowId = await engine().publish(flow(receiver().url, { name: 'Review', honoured: false }));
      const { runId } = await engine().services.runs.start({ flowId, input: { order: 'N-1' } });
      expect((await engine().waitForRun(runId)).status).toBe('needs_review');
      await engine().services.runs.cancel(runId, 'admin');
      const events = await timeline(runId);
      expect(events.at(-1)).toMatchObject({ type: 'run.cancelled', data: { previousStatus: 'needs_review', acting: [], notRun: 1 } });
      expect((await readClaim(engine().services.db, `${flowId}:invoice`, 'N-1:invoice'))?.status).toBe('uncertain');
      expect(receiver().calls.map((call) => call.path)).toEqual(['/invoice']);
      await expect(engine().services.runs.resolve(runId, 'invoice', 'happened')).rejects.toThrow(/not waiting for a decision/);
    });

    it('never acts after a cancel: a claim won afterwards is released unused', async () => {
      // Run A acts on the key and is held; run B, same key, waits for A's claim. B is
      // cancelled; then A's receiver refuses, so the key is free and B takes it over. B
      // must not act: it releases the claim and records that nothing was sent.
      const gate = await startGate();
      try {
        const flowId = await engine().publish(flow(gate.url, { name: 'Gate' }));
        const { runId: first } = await engine().services.runs.start({ flowId, input: { order: 'G-1' } });
        await gate.firstCall;
        const { runId: second } = await engine().services.runs.start({ flowId, input: { order: 'G-1' } });
        await engine().waitForRun(second, ['running']);
        await engine().services.runs.cancel(second, 'admin');
        gate.letGo();
        expect((await engine().waitForRun(first)).status).toBe('failed');
        const summary = await until('the released claim to be recorded', async () =>
          (await timeline(second)).find((event) => event.type === 'run.cancelled' && event.data?.finished !== undefined));
        expect(summary.data).toMatchObject({ acting: ['invoice'], finished: 'not_sent' });
        await until('the worker to let go of the runs', () => engine().worker.activeCount() === 0);
        const claim = await readClaim(engine().services.db, `${flowId}:invoice`, 'G-1:invoice');
        expect(claim).toMatchObject({ status: 'failed', ownerRunId: second });
        expect(gate.paths).toEqual(['/invoice']);
        expect((await getRun(engine().services.db, second))?.status).toBe('cancelled');
      } finally {
        await gate.close();
      }
    });

    it('never leases a cancelled queued run', async () => {
      receiver().reset();
      receiver().behave = () => ({ kind: 'ok' });
      receiver().onCall = undefined;
      const flowId = await engine().publish(flow(receiver().url, { name: 'Queued' }));
      await engine().worker.stop();
      const { runId } = await engine().services.runs.start({ flowId, input: { order: 'Q-1' } });
      await engine().services.runs.cancel(runId, 'ops');
      // A fresh worker runs the next run to its end; the cancelled one, queued before it, stays untouched.
      const worker = engine().services.createWorker({ concurrency: 4 });
      worker.start();
      try {
        const { runId: next } = await engine().services.runs.start({ flowId, input: { order: 'Q-2' } });
        expect((await engine().waitForRun(next)).status).toBe('succeeded');
      } finally {
        await worker.stop();
      }
      const run = await getRun(engine().services.db, runId);
      expect(run?.status).toBe('cancelled');
      expect(run?.startedAt).toBeNull();
      const events = await timeline(runId);
      expect(events.map((event) => event.type)).toEqual(['run.queued', 'run.cancelled']);
      expect(events[1]?.data).toMatchObject({ by: 'ops', previousStatus: 'queued', acting: [], notRun: 2 });
      expect(receiver().calls.map((call) => call.body)).toEqual([{ ref: 'Q-2:invoice' }, { ref: 'Q-2:notify' }]);
      await expect(engine().services.runs.cancel(runId)).rejects.toThrow(/already cancelled/);
    });
  });
}
