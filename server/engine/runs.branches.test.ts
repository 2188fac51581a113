/**
 * Conditions in real runs, on each database: only the branch taken runs, the branch is
 * recorded in the condition's checkpoint, and a rerun follows what was recorded, also in
 * checkpoints written before the branch was recorded.
 *
 *   start ──► prep (transform; has an output named "branch")
 *               └──► check (total > 100) ──true──► charge (http.request, side effect)
 *                                        └─false─► note (transform)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { loadCheckpoints } from '../store/timeline.ts';

function branchingFlow(receiverUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Big orders',
    sampleInput: { id: 'o-1', total: 120 },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      // An output may be named "branch": it must not be taken for an exit.
      { id: 'prep', type: 'transform', position: { x: 150, y: 0 }, data: { outputs: { total: '{{ trigger.body.total }}', branch: 'false' } } },
      { id: 'check', type: 'condition', position: { x: 300, y: 0 }, data: { label: 'Big order?', left: '{{ steps.prep.output.total }}', op: 'gt', right: 100 } },
      {
        id: 'charge', type: 'http.request', position: { x: 450, y: -80 },
        data: {
          sideEffect: true, key: '{{ trigger.body.id }}:charge', receiverKeyHeader: 'Idempotency-Key', retry: { max: 0 },
          request: { method: 'POST', url: `${receiverUrl}/charge`, body: '{"ref": "{{ trigger.body.id }}:charge"}' },
        },
      },
      { id: 'note', type: 'transform', position: { x: 450, y: 80 }, data: { outputs: { small: 'yes' } } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'prep' },
      { id: 'e2', source: 'prep', target: 'check' },
      { id: 'e3', source: 'check', sourceHandle: 'true', target: 'charge' },
      { id: 'e4', source: 'check', sourceHandle: 'false', target: 'note' },
    ],
  };
}

for (const kind of testDatabases()) {
  describe(`condition branches on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let receiver: Receiver;
    let flowId: string;

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      receiver = await startReceiver({ honoursKeys: true });
      flowId = await engine.publish(branchingFlow(receiver.url));
    });
    afterAll(async () => {
      await engine?.close();
      await receiver?.close();
      await database?.drop();
    });

    const statuses = async (runId: string) =>
      Object.fromEntries((await engine.services.runs.get(runId)).steps.map((step) => [step.nodeId, step.status]));

    it('runs only the branch the condition took, and records that branch in its checkpoint', async () => {
      receiver.reset();
      const big = await engine.runAndWait(flowId, { id: 'B-1', total: 120 });
      expect(big.status).toBe('succeeded');
      expect(await statuses(big.id)).toMatchObject({ prep: 'succeeded', check: 'succeeded', charge: 'succeeded', note: 'skipped' });
      expect(receiver.effects.get('B-1:charge')).toBe(1);
      const check = (await loadCheckpoints(engine.services.db, big.id)).find((row) => row.nodeId === 'check');
      expect(check?.output).toMatchObject({ result: true, branch: 'true' });

      const small = await engine.runAndWait(flowId, { id: 'S-1', total: 50 });
      expect(small.status).toBe('succeeded');
      expect(await statuses(small.id)).toMatchObject({ check: 'succeeded', charge: 'skipped', note: 'succeeded' });
      expect(receiver.calls.filter((call) => call.ref === 'S-1:charge')).toHaveLength(0);
    });

    it('follows the recorded branch on a rerun, also from a checkpoint written before branches were recorded', async () => {
      receiver.reset();
      receiver.behave = () => ({ kind: 'status', status: 422 });
      const failed = await engine.runAndWait(flowId, { id: 'R-1', total: 300 });
      expect(failed.status).toBe('failed');

      // Checkpoints of older servers hold the condition's result but no branch.
      const check = (await loadCheckpoints(engine.services.db, failed.id)).find((row) => row.nodeId === 'check');
      const { branch: _branch, ...older } = check?.output as Record<string, unknown>;
      await engine.services.db.run('UPDATE checkpoints SET output = ? WHERE run_id = ? AND node_id = ?', [JSON.stringify(older), failed.id, 'check']);

      receiver.behave = () => ({ kind: 'ok' });
      await engine.services.runs.rerun(failed.id);
      const rerun = await engine.waitForRun(failed.id, ['succeeded', 'failed', 'needs_review'], 20_000);
      expect(rerun.status).toBe('succeeded');
      expect(await statuses(failed.id)).toMatchObject({ prep: 'succeeded', check: 'succeeded', charge: 'succeeded', note: 'skipped' });
      expect(receiver.effects.get('R-1:charge')).toBe(1);
      const skipped = (await engine.services.runs.get(failed.id)).timeline.filter((event) => event.type === 'step.skipped' && event.attempt === 2);
      expect(skipped.map((event) => [event.nodeId, event.data?.reason])).toEqual([['prep', 'checkpoint'], ['check', 'checkpoint'], ['note', 'branch']]);
    });
  });
}
