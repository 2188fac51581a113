/**
 * A recovery of a time window on each database, with real loopback receivers. 160 runs
 * fail on v1: for every fourth order the invoice service refuses, so that run failed
 * before acting; for the others the invoice was sent and shipping was refused. v2 fixes
 * shipping. The recovery reruns the failed runs on v2:
 * - its one summed preview equals the per-run previews added up;
 * - cancelled halfway, the runs of the batches already committed run, none after them,
 *   and nothing is sent twice;
 * - a second recovery of what is left, stopped with its server mid-way and taken up by
 *   another runner's periodic look, queues every remaining run exactly once;
 * - each report's figures match the receiver's ledger exactly;
 * - a key whose claim was swept is counted and named as expired;
 * - a step left uncertain by the recovery shows in the report with who resolved it;
 * - a replay of the window stops the work done as duplicates and acts once for the expired key.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, SETTLED, type EngineHarness } from '../../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../../testing/databases.ts';
import { startReceiver, type Receiver } from '../../testing/receiver.ts';
import { until } from '../../testing/wait-for.ts';
import { flowStore } from '../../store/flows.ts';
import { operationRunsPage } from '../../store/operations.ts';
import { getRun } from '../../store/runs.ts';
import { createOperationRunner, type OperationRunner } from './runner.ts';
import { recoveryService } from './service.ts';

const RUNS = 160;

function effect(id: string, label: string, url: string) {
  return {
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: { label, sideEffect: true, key: `{{ trigger.body.order }}:${id}`, onUncertain: 'review', timeoutMs: 5000, retry: { max: 0 },
      request: { method: 'POST', url, body: `{"ref": "{{ trigger.body.order }}:${id}"}` } },
  };
}

function flow(url: string, shipPath: string) {
  return {
    format: 'onceflow/v1',
    name: 'Order paid',
    sampleInput: { order: 'O-1' },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      effect('invoice', 'Create invoice', `${url}/invoice`),
      { id: 'note', type: 'transform', position: { x: 0, y: 0 }, data: { label: 'Note it', outputs: { done: 'yes' } } },
      effect('ship', 'Ship it', `${url}${shipPath}`),
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'invoice' },
      { id: 'e2', source: 'invoice', target: 'note' },
      { id: 'e3', source: 'note', target: 'ship' },
    ],
  };
}

for (const kind of testDatabases()) {
  describe(`recovering a time window on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let receiver: Receiver;
    let flowId: string;
    const runners: OperationRunner[] = [];
    const refusedInvoice = (order: string) => Number(order.slice(2)) % 4 === 0;

    /** A recovery service over the engine's database whose runner goes in small, slow batches. */
    function recoveries(batchSize: number, pauseMs: number) {
      const { db, plans, clock } = engine.services;
      const flows = flowStore(db);
      const runner = createOperationRunner({ db, flows, plans, clock, log: pino({ level: 'silent' }), onQueued: engine.services.nudge }, { batchSize, pauseMs });
      runners.push(runner);
      return { runner, service: recoveryService({ db, flows, plans, clock, runner }) };
    }
    const callsTo = (path: string) => receiver.calls.filter((call) => call.path === path);
    const refsTo = (path: string) => callsTo(path).map((call) => call.ref!);

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      receiver = await startReceiver({ honoursKeys: false });
      receiver.behave = (call) => (call.path === '/broken' || (call.path === '/invoice' && refusedInvoice(call.ref!.split(':')[0]!)) ? { kind: 'status', status: 422 } : { kind: 'ok' });
      flowId = await engine.publish(flow(receiver.url, '/broken'));
      const started = await Promise.all(Array.from({ length: RUNS }, (_, index) => engine.services.runs.start({ flowId, input: { order: `O-${index + 1}` } })));
      for (const { runId } of started) expect((await engine.waitForRun(runId)).status).toBe('failed');
      // The fix: v2 ships to the right address; the invoice service takes every order again.
      receiver.behave = () => ({ kind: 'ok' });
      await engine.services.flows.saveDraft(flowId, flow(receiver.url, '/ship'));
      expect((await engine.services.flows.publish(flowId, 'admin')).version).toBe(2);
    }, 120_000);
    afterAll(async () => {
      await Promise.all(runners.map((runner) => runner.stop()));
      await engine?.close();
      await receiver?.close();
      await database?.drop();
    });

    const request = { from: 0, to: Date.now() + 60_000, statuses: ['failed' as const], triggerKinds: ['manual' as const], mode: 'rerun' as const, version: 'latest' as const };

    it('previews the whole window as the per-run previews added up', async () => {
      const { service } = recoveries(200, 1);
      const preview = await service.preview({ ...request, flowId });
      expect(preview.runs).toBe(RUNS);
      const refused = RUNS / 4;
      // v2 forgets the finished steps: a sent invoice stops as a duplicate, a refused one acts, shipping acts everywhere.
      expect(preview.counts).toEqual({ skip: 0, deduplicate: RUNS - refused, act: refused + RUNS, review: 0 });
      expect(preview.acting).toEqual([
        { nodeId: 'ship', label: 'Ship it', type: 'http.request', runs: RUNS },
        { nodeId: 'invoice', label: 'Create invoice', type: 'http.request', runs: refused },
      ]);
      expect(preview).toMatchObject({ onOlderVersion: RUNS, warnings: 0, expired: 0, unavailable: 0, tooMany: false });
      const failed = (await engine.services.runs.list({ flowId, status: 'failed', limit: 500 })).runs;
      const sum = { skip: 0, deduplicate: 0, act: 0, review: 0 };
      for (const run of failed) {
        const one = await engine.services.runs.rerunPreview(run.id, 'latest');
        for (const action of Object.keys(sum) as (keyof typeof sum)[]) sum[action] += one.counts[action];
      }
      expect(sum).toEqual(preview.counts);
    });

    it('cancelled halfway: whole batches ran, nothing after them, nothing twice, and the report matches the ledger', async () => {
      const { service } = recoveries(20, 60);
      receiver.reset();
      const started = await service.start({ ...request, flowId, name: 'Shipping outage' }, 'ops@example.com');
      expect(started).toMatchObject({ status: 'running', total: RUNS, name: 'Shipping outage', createdBy: 'ops@example.com' });
      await until('half the runs queued', async () => (await service.get(started.id)).done >= RUNS / 2);
      const cancelled = await service.cancel(started.id, 'ops@example.com');
      expect(cancelled).toMatchObject({ status: 'cancelled', cancelledBy: 'ops@example.com' });
      expect(cancelled.done % 20).toBe(0);
      expect(cancelled.done).toBeLessThan(RUNS);

      const rows = await operationRunsPage(engine.services.db, started.id, -1, 1000);
      const queued = rows.filter((row) => row.state === 'queued');
      expect(queued.length).toBe(cancelled.done);
      expect(rows.filter((row) => row.state === 'pending').length).toBe(RUNS - cancelled.done);
      for (const row of queued) expect((await engine.waitForRun(row.targetRunId!)).status).toBe('succeeded');
      for (const row of rows.filter((candidate) => candidate.state === 'pending')) expect((await getRun(engine.services.db, row.runId))!.status).toBe('failed');

      const orders = await Promise.all(queued.map(async (row) => ((await getRun(engine.services.db, row.runId))!.input as { order: string }).order));
      // Each queued run shipped once; none left pending did; no invoice was sent twice.
      expect(refsTo('/ship').sort()).toEqual(orders.map((order) => `${order}:ship`).sort());
      expect(refsTo('/invoice').sort()).toEqual(orders.filter(refusedInvoice).map((order) => `${order}:invoice`).sort());

      const report = await service.report(started.id);
      const step = (id: string) => report.steps.find((candidate) => candidate.nodeId === id)!;
      expect(step('ship')).toMatchObject({ acted: callsTo('/ship').length, duplicates: 0 });
      expect(step('invoice')).toMatchObject({ acted: callsTo('/invoice').length, duplicates: queued.length - callsTo('/invoice').length });
      expect(step('note')).toMatchObject({ ran: queued.length, acted: 0 });
      expect(report.totals).toMatchObject({ included: RUNS, queued: queued.length, pending: RUNS - queued.length, settled: queued.length, acted: receiver.calls.length });
      expect(report.operation).toMatchObject({ name: 'Shipping outage', createdBy: 'ops@example.com', status: 'cancelled' });
      expect(report.asked).toMatchObject({ statuses: ['failed'], mode: 'rerun', version: 'latest', flowId });
      const { timeline } = await engine.services.runs.get(queued[0]!.runId);
      expect(timeline.find((event) => event.type === 'run.rerun')?.data).toMatchObject({ operation: 'Shipping outage', by: 'ops@example.com', version: 2 });
    }, 60_000);

    it('a recovery whose server stopped mid-way is taken up by another process from where it stopped, each run queued once', async () => {
      const first = recoveries(10, 50);
      receiver.reset();
      const started = await first.service.start({ ...request, flowId, name: 'The rest' });
      const left = started.total;
      await until('a few batches queued', async () => (await first.service.get(started.id)).done >= 20);
      // The server stops: its runner ends between batches and the operation stays "running".
      await first.runner.stop();
      const stopped = await first.service.get(started.id);
      expect(stopped.status).toBe('running');
      expect(stopped.done).toBeLessThan(left);

      // Nobody drives it now. Another process's periodic look (no resumeAll at start) takes it up.
      const second = recoveries(50, 1);
      second.runner.watch(50);
      await until('the operation finished', async () => (await second.service.get(started.id)).status === 'finished');
      const rows = await operationRunsPage(engine.services.db, started.id, -1, 1000);
      expect(rows.every((row) => row.state === 'queued')).toBe(true);
      expect((await second.service.get(started.id)).done).toBe(left);
      for (const row of rows) {
        const run = await engine.waitForRun(row.targetRunId!, SETTLED);
        expect(run.status).toBe('succeeded');
        // One rerun each: attempt 2, never 3.
        expect(run.attempt).toBe(2);
      }
      const shipped = refsTo('/ship');
      expect(new Set(shipped).size).toBe(shipped.length);
      expect(shipped.length).toBe(left);
      const report = await second.service.report(started.id);
      expect(report.totals).toMatchObject({ included: left, queued: left, settled: left, acted: receiver.calls.length });
      expect(report.runs.every((run) => run.status === 'succeeded')).toBe(true);
      // Every failed run of the flow is recovered now.
      expect((await engine.services.runs.list({ flowId, status: 'failed' })).runs).toEqual([]);
    }, 60_000);

    it('counts a key whose record expired as acting again, by name', async () => {
      const { service } = recoveries(200, 1);
      const run = (await getRun(engine.services.db, (await engine.services.runs.list({ flowId, status: 'succeeded', limit: 1 })).runs[0]!.id))!;
      const order = (run.input as { order: string }).order;
      // The claim is swept after its time to live; the run's checkpoint still says the key was done.
      expect(await engine.services.db.run('DELETE FROM claims WHERE key = ?', [`${order}:ship`])).toBe(1);
      const preview = await service.preview({ ...request, flowId, statuses: ['succeeded'], mode: 'replay' });
      expect(preview).toMatchObject({ runs: RUNS, expired: 1, counts: { skip: 0, deduplicate: 2 * RUNS - 1, act: 1, review: 0 } });
      expect(preview.expiredKeys).toEqual([{ runId: run.id, seq: run.seq, nodeId: 'ship', label: 'Ship it', key: `${order}:ship` }]);
      const one = await engine.services.runs.replayPreview(run.id);
      expect(one.steps.find((step) => step.nodeId === 'ship')?.reason).toBe(`Acts again: key ${order}:ship was done before, but its record expired, so nothing stops it now.`);
    });

    it('reports an uncertain step of the recovery and who resolved it', async () => {
      const { service } = recoveries(200, 1);
      const previous = receiver.behave;
      receiver.behave = (call) => (call.path === '/broken' ? { kind: 'status', status: 422 } : call.path === '/drop' ? { kind: 'drop' } : { kind: 'ok' });
      try {
        const uncertainFlow = await engine.publish({ ...flow(receiver.url, '/broken'), name: 'Uncertain shipping' });
        const { runId } = await engine.services.runs.start({ flowId: uncertainFlow, input: { order: 'U-1' } });
        expect((await engine.waitForRun(runId)).status).toBe('failed');
        await engine.services.flows.saveDraft(uncertainFlow, { ...flow(receiver.url, '/drop'), name: 'Uncertain shipping' });
        await engine.services.flows.publish(uncertainFlow, 'admin');
        const started = await service.start({ ...request, flowId: uncertainFlow, name: 'Shipping again' });
        await until('the operation finished', async () => (await service.get(started.id)).status === 'finished');
        // The answer was lost: nobody knows whether the parcel shipped, so the run asks a person.
        expect((await engine.waitForRun(runId)).status).toBe('needs_review');
        expect((await service.report(started.id)).uncertain).toEqual([
          { runId, seq: expect.any(Number), nodeId: 'ship', label: 'Ship it', key: 'U-1:ship', decision: null, resolvedBy: null, resolvedAt: null },
        ]);
        await engine.services.runs.resolve(runId, 'ship', 'happened', 'ops@example.com');
        expect((await engine.waitForRun(runId)).status).toBe('succeeded');
        const report = await service.report(started.id);
        expect(report.uncertain).toEqual([expect.objectContaining({ nodeId: 'ship', decision: 'happened', resolvedBy: 'ops@example.com', resolvedAt: expect.any(String) })]);
        expect(report.totals).toMatchObject({ uncertain: 1, settled: 1 });
        expect(report.steps.find((step) => step.nodeId === 'ship')).toMatchObject({ uncertain: 1, acted: 0 });
      } finally {
        receiver.behave = previous;
      }
    });

    it('replays every succeeded run: the work done stops as duplicates, the expired key acts once', async () => {
      const { service } = recoveries(50, 1);
      receiver.reset();
      const started = await service.start({ ...request, flowId, statuses: ['succeeded'], mode: 'replay', name: 'Replay all' });
      expect(started.preview).toMatchObject({ runs: RUNS, expired: 1 });
      await until('the operation finished', async () => (await service.get(started.id)).status === 'finished');
      const report = await until('every replay finished', async () => {
        const current = await service.report(started.id);
        return current.totals.settled === RUNS && current;
      });
      expect(report.runs.every((run) => run.workRunId !== run.runId && run.status === 'succeeded')).toBe(true);
      const expiredKey = started.preview!.expiredKeys[0]!.key;
      // Only the key whose claim was swept acted, once; everything else was already done.
      expect(receiver.calls.map((call) => call.ref)).toEqual([expiredKey]);
      expect(report.totals).toMatchObject({ acted: 1, duplicates: 2 * RUNS - 1, queued: RUNS });
      const replay = (await getRun(engine.services.db, report.runs[0]!.workRunId!))!;
      expect(replay.replayOf).toBe(report.runs[0]!.runId);
    });
  });
}
