/**
 * What the run history and the rerun dialog are built on: search, per-run counts, per-flow
 * stats, the rerun preview and bulk reruns — against real runs on SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../testing/databases.ts';
import { invoiceFlow, startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';

describe('run insights', () => {
  const database = createSqliteDatabase();
  let engine: EngineHarness;
  let receiver: Receiver;
  beforeAll(async () => {
    engine = await startEngine(database.url);
    receiver = await startReceiver({ honoursKeys: true });
  });
  afterAll(async () => {
    await engine.close();
    await receiver.close();
    await database.drop();
  });

  /*
   *   start ──► invoice (side effect) ──► after ──► notify (side effect, fails at first)
   */
  function twoEffects() {
    const base = invoiceFlow(receiver.url);
    return {
      ...base,
      nodes: [...base.nodes, { id: 'notify', type: 'http.request', position: { x: 600, y: 0 }, data: {
        label: 'Notify', sideEffect: true, key: '{{ trigger.body.order.id }}:notify', receiverKeyHeader: 'Idempotency-Key', retry: { max: 0 },
        request: { method: 'POST', url: `${receiver.url}/notify`, body: '{"ref": "{{ trigger.body.order.id }}:notify"}' },
      } }],
      edges: [...base.edges, { id: 'e3', source: 'after', target: 'notify' }],
    };
  }

  it('previews a rerun: finished steps skipped, the failed side effect acts', async () => {
    receiver.behave = (call) => (call.path === '/notify' ? { kind: 'status', status: 422 } : { kind: 'ok' });
    const flowId = await engine.publish(twoEffects());
    const run = await engine.runAndWait(flowId, { order: { id: 'P-1', total: 1 } });
    expect(run.status).toBe('failed');
    const preview = await engine.services.runs.rerunPreview(run.id);
    expect(preview.steps.map((step) => [step.nodeId, step.action])).toEqual([['invoice', 'skip'], ['after', 'skip'], ['notify', 'act']]);
    expect(preview.counts).toEqual({ skip: 2, deduplicate: 0, act: 1, review: 0 });
    expect(preview.steps[2]!.reason).toContain('P-1:notify');

    // A second run with the same order: its invoice would be a duplicate of the first run's.
    const second = await engine.runAndWait(flowId, { order: { id: 'P-1', total: 1 } });
    await engine.services.db.run(`DELETE FROM checkpoints WHERE run_id = ? AND node_id = 'invoice'`, [second.id]);
    const secondPreview = await engine.services.runs.rerunPreview(second.id);
    expect(secondPreview.steps.find((step) => step.nodeId === 'invoice')).toMatchObject({ action: 'deduplicate' });
    expect(secondPreview.steps.find((step) => step.nodeId === 'invoice')!.reason).toContain(`run #${run.seq}`);
    receiver.behave = () => ({ kind: 'ok' });
  });

  it('reruns every failed run of a flow at once, after a summed preview', async () => {
    receiver.behave = (call) => (call.path === '/notify' ? { kind: 'status', status: 422 } : { kind: 'ok' });
    const flowId = await engine.publish(twoEffects());
    for (const id of ['B-1', 'B-2', 'B-3']) await engine.runAndWait(flowId, { order: { id, total: 1 } });
    receiver.behave = () => ({ kind: 'ok' });
    expect(await engine.services.runs.bulkPreview({ flowId, status: 'failed' })).toEqual({ runs: 3, counts: { skip: 6, deduplicate: 0, act: 3, review: 0 }, warnings: 0, onOlderVersion: 0, expired: 0 });
    expect(await engine.services.runs.bulkRerun({ flowId, status: 'failed' })).toEqual({ rerun: 3 });
    const listed = await engine.services.runs.list({ flowId });
    for (const run of listed.runs) await engine.waitForRun(run.id, ['succeeded']);
    const after = await engine.services.runs.list({ flowId });
    expect(after.runs.every((run) => run.skipped >= 2 && run.version === 1 && run.flowName === 'Invoice')).toBe(true);
  });

  it('finds runs by id, number and event id, and counts duplicates per run and per flow', async () => {
    const flowId = await engine.publish(invoiceFlow(receiver.url));
    const first = await engine.runAndWait(flowId, { order: { id: 'S-1', total: 1 } });
    const second = await engine.runAndWait(flowId, { order: { id: 'S-1', total: 1 } });
    expect((await engine.services.runs.list({ search: first.id })).runs.map((run) => run.id)).toEqual([first.id]);
    expect((await engine.services.runs.list({ search: `#${second.seq}` })).runs.map((run) => run.id)).toEqual([second.id]);
    const listed = await engine.services.runs.list({ flowId });
    expect(listed.runs.find((run) => run.id === second.id)).toMatchObject({ duplicates: 1 });
    expect(listed.runs.find((run) => run.id === first.id)).toMatchObject({ duplicates: 0 });
    expect(listed.runs[0]!.durationMs).toBeGreaterThanOrEqual(0);
    const flow = (await engine.services.flows.list()).find((candidate) => candidate.id === flowId);
    expect(flow).toMatchObject({ runsToday: 2, failuresToday: 0, duplicatesThisWeek: 1 });
    const page = await engine.services.runs.timeline(first.id, 0, 3);
    expect(page.events).toHaveLength(3);
    const rest = await engine.services.runs.timeline(first.id, page.nextAfterId!, 1000);
    expect(rest.events[0]!.id).toBeGreaterThan(page.events[2]!.id!);
  });
});
