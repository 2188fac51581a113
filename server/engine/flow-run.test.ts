/**
 * Run flow steps on each database, with the child's side effect going to a real receiver
 * on loopback: one child run per parent key however the parent is rerun or replayed, a
 * failed child fails the parent with its reason and is rerun (not restarted) by the
 * parent's rerun, a child in review holds its parent, and cycles are refused at publish.
 *
 *   parent: start ──► call (flow.run → child, key "{{ trigger.body.order.id }}:child") ──► after
 *   child:  start ──► invoice (http.request, key "{{ trigger.body.order.id }}:invoice") ──► after
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceFlow, startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { childRunsOf } from '../store/child-runs.ts';
import { parentFlow } from '../testing/flow-run-flows.ts';


for (const kind of testDatabases()) {
  describe(`Run flow on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let honouring: Receiver;
    let plain: Receiver;

    const childrenOf = (runId: string) => childRunsOf(engine.services.db, runId);
    const runsOfFlow = async (flowId: string) => (await engine.services.runs.list({ flowId, mode: 'all' })).runs;

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

    it('a parent rerun on a new version and replayed starts one child run per key; the receiver sees one effect', async () => {
      honouring.reset();
      plain.reset();
      const childFlowId = await engine.publish(invoiceFlow(honouring.url, { name: 'Child invoice' }));
      // The ledger refuses the first call, so the parent fails after its child succeeded.
      plain.behave = (_call, n) => (n === 1 ? { kind: 'status', status: 422 } : { kind: 'ok' });
      const parentId = await engine.publish(parentFlow(childFlowId, { afterUrl: plain.url }));
      const failed = await engine.runAndWait(parentId, { order: { id: 'P1', total: 5 } });
      expect(failed.status).toBe('failed');
      const [child] = await childrenOf(failed.id);
      expect(child).toMatchObject({ status: 'succeeded', parentRunId: failed.id, parentNodeId: 'call', flowId: childFlowId });
      expect(honouring.effects.get('P1:invoice')).toBe(1);

      // Links both ways on the run pages.
      const parentPage = await engine.services.runs.view(failed.id);
      const call = parentPage.steps.find((step) => step.nodeId === 'call');
      expect(call).toMatchObject({ status: 'succeeded', child: { runId: child!.id, flowName: 'Child invoice', status: 'succeeded' } });
      expect(call?.output).toEqual({ childRunId: child!.id, result: { order: 'P1', done: 'yes' } });
      const childPage = await engine.services.runs.view(child!.id);
      expect(childPage.run.parent).toMatchObject({ runId: failed.id, seq: failed.seq, flowName: 'Parent', nodeId: 'call', stepLabel: 'Bill the order' });
      expect(childPage.run.parentRunId).toBe(failed.id);

      // v2 changes the step's label only: a rerun on it forgets the step's checkpoint, and the claim answers.
      await engine.services.flows.saveDraft(parentId, parentFlow(childFlowId, { afterUrl: plain.url, label: 'Bill it' }));
      await engine.services.flows.publish(parentId);
      await engine.services.runs.rerun(failed.id);
      const rerun = await engine.waitForRun(failed.id, ['succeeded', 'failed', 'needs_review']);
      expect(rerun.status).toBe('succeeded');
      const rerunTimeline = (await engine.services.runs.get(failed.id)).timeline.filter((event) => event.attempt === 2 && event.nodeId === 'call');
      expect(rerunTimeline.map((event) => event.type)).toEqual(['step.started', 'step.duplicate']);

      // A replay of the parent: the key was done, so the same child's result comes back.
      const replay = await engine.services.runs.replay(failed.id);
      const replayed = await engine.waitForRun(replay.runId);
      expect(replayed.status).toBe('succeeded');
      const replayPage = await engine.services.runs.get(replayed.id);
      expect(replayPage.timeline.filter((event) => event.nodeId === 'call').map((event) => event.type)).toEqual(['step.started', 'step.duplicate']);
      expect(replayPage.steps.find((step) => step.nodeId === 'call')).toMatchObject({ status: 'duplicate', child: { runId: child!.id } });

      expect(await runsOfFlow(childFlowId)).toHaveLength(1);
      expect(await childrenOf(replayed.id)).toHaveLength(0);
      expect(honouring.effects.get('P1:invoice')).toBe(1);
      expect(honouring.calls).toHaveLength(1);
      plain.behave = () => ({ kind: 'ok' });
    });

    it('parents started together with one key share one child, and its end wakes every one of them', async () => {
      honouring.reset();
      // The child is slow, so the other parents park on it before it ends.
      honouring.behave = () => ({ kind: 'slow', delayMs: 300 });
      const childFlowId = await engine.publish(invoiceFlow(honouring.url, { name: 'Slow child' }));
      const parentId = await engine.publish(parentFlow(childFlowId, { name: 'Parents together' }));
      const started = await Promise.all(Array.from({ length: 5 }, () => engine.services.runs.start({ flowId: parentId, input: { order: { id: 'S1', total: 1 } } })));
      // Well before the 5-minute backstop: each waiting parent is woken by the child's end.
      const runs = await Promise.all(started.map((run) => engine.waitForRun(run.runId, ['succeeded', 'failed', 'needs_review'], 10_000)));
      expect(runs.map((run) => run.status)).toEqual(Array(5).fill('succeeded'));
      expect(await runsOfFlow(childFlowId)).toHaveLength(1);
      expect(honouring.effects.get('S1:invoice')).toBe(1);
      const outputs = await Promise.all(runs.map(async (run) => (await engine.services.runs.view(run.id)).steps.find((step) => step.nodeId === 'call')?.output));
      expect(new Set(outputs.map((output) => JSON.stringify(output))).size).toBe(1);
      honouring.behave = () => ({ kind: 'ok' });
    });

    it('a failed child fails the parent with its reason; fixed and the parent rerun, the same child is rerun from its checkpoints', async () => {
      honouring.reset();
      honouring.behave = () => ({ kind: 'status', status: 422 });
      const childFlowId = await engine.publish(invoiceFlow(honouring.url, { name: 'Picky child' }));
      const parentId = await engine.publish(parentFlow(childFlowId, { name: 'Parent of picky' }));
      const failed = await engine.runAndWait(parentId, { order: { id: 'F1', total: 5 } });
      expect(failed.status).toBe('failed');
      const [child] = await childrenOf(failed.id);
      expect(child?.status).toBe('failed');
      expect(failed.error).toBe(`Child run of Picky child failed: ${child!.error}`);
      expect(child!.error).toContain('422');
      expect((await engine.services.runs.view(failed.id)).steps.find((step) => step.nodeId === 'call')).toMatchObject({ status: 'failed', child: { runId: child!.id, status: 'failed' } });

      // The fix: the receiver accepts now, and the child flow has a new version.
      honouring.behave = () => ({ kind: 'ok' });
      await engine.services.flows.saveDraft(childFlowId, invoiceFlow(honouring.url, { name: 'Picky child', retryMax: 3 }));
      await engine.services.flows.publish(childFlowId);
      const preview = await engine.services.runs.rerunPreview(failed.id);
      expect(preview.steps.find((step) => step.nodeId === 'call')?.reason).toBe(`Reruns child run #${child!.seq} from its checkpoints: its key started that run, so no second child is started.`);
      await engine.services.runs.rerun(failed.id);
      const rerun = await engine.waitForRun(failed.id, ['succeeded', 'failed', 'needs_review']);
      expect(rerun.status).toBe('succeeded');

      const children = await childrenOf(failed.id);
      expect(children).toHaveLength(1);
      expect(children[0]).toMatchObject({ id: child!.id, status: 'succeeded', attempt: 2 });
      const childTimeline = (await engine.services.runs.get(child!.id)).timeline;
      expect(childTimeline.find((event) => event.type === 'run.rerun')?.data).toMatchObject({ parentRunId: failed.id, version: 2, fromVersion: 1 });
      expect(honouring.effects.get('F1:invoice')).toBe(1);
      expect((await engine.services.runs.view(failed.id)).steps.find((step) => step.nodeId === 'after')?.output).toEqual({ child: 'F1' });
    });

    it('a failed child whose flow tries it again later holds its parent until that rerun ends', async () => {
      honouring.reset();
      honouring.behave = () => ({ kind: 'status', status: 422 });
      const childFlowId = await engine.publish({ ...invoiceFlow(honouring.url, { name: 'Retried child' }), settings: { retryFailedRuns: ['1m'] } });
      const parentId = await engine.publish(parentFlow(childFlowId, { name: 'Parent of retried' }));
      const { runId } = await engine.services.runs.start({ flowId: parentId, input: { order: { id: 'A1', total: 5 } } });
      const waitingFor = async () => (await engine.services.runs.get(runId)).timeline.filter((event) => event.type === 'step.waiting').map((event) => String(event.data?.message));
      for (let look = 0; look < 500 && !(await waitingFor()).some((message) => message.includes('tries it again')); look++) await new Promise((resolve) => setTimeout(resolve, 20));
      const [child] = await childrenOf(runId);
      expect((await waitingFor()).at(-1)).toMatch(new RegExp(`^Child run #${child!.seq} of Retried child failed: .*422.*\\. Its flow tries it again at .+, and this step waits for it\\.$`));
      expect((await engine.waitForRun(runId, ['waiting'])).status).toBe('waiting');

      honouring.behave = () => ({ kind: 'ok' });
      const due = await engine.services.autoReruns.runDue(Date.now() + 2 * 60_000);
      expect(due).toBe(1);
      const parent = await engine.waitForRun(runId, ['succeeded', 'failed', 'needs_review'], 10_000);
      expect(parent.status).toBe('succeeded');
      expect(await childrenOf(runId)).toHaveLength(1);
      expect(honouring.effects.get('A1:invoice')).toBe(1);
    });

    it('a child that needs review holds the runs waiting for it, which go on once the child is decided', async () => {
      plain.reset();
      plain.behave = () => ({ kind: 'status', status: 503, act: true });
      const childFlowId = await engine.publish(invoiceFlow(plain.url, { name: 'Unsure child', keyHeader: false, retryMax: 0 }));
      const parentId = await engine.publish(parentFlow(childFlowId, { name: 'Parent of unsure' }));
      const { runId } = await engine.services.runs.start({ flowId: parentId, input: { order: { id: 'R1', total: 5 } } });
      const [child] = await (async () => {
        await engine.waitForRun(runId, ['waiting']);
        for (;;) {
          const found = await childrenOf(runId);
          if (found[0]?.status === 'needs_review') return found;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      // The child's end woke the parent, which now says why it waits.
      const said = async () => (await engine.services.runs.get(runId)).timeline.filter((event) => event.type === 'step.waiting').map((event) => String(event.data?.message));
      for (let look = 0; look < 200 && !(await said()).some((message) => message.includes('needs review')); look++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await said()).at(-1)).toBe(`Child run #${child!.seq} of Unsure child needs review: ${child!.error}. This step waits until it is decided there.`);
      // Parked on a child in review, the parent is not woken again until the child changes:
      // no lease after lease while a person has not decided yet.
      const parked = await engine.waitForRun(runId, ['waiting']);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await engine.services.runs.get(runId)).run.status).toBe('waiting');
      expect((await engine.waitForRun(runId, ['waiting'])).leaseFence).toBe(parked.leaseFence);

      // A replay waits for the same child. The parent, parked and not acting, is cancelled
      // (its claim stays with the child, which the replay still waits for, so it is not
      // cancelled with the parent); the child's decision lets the replay go on.
      const replay = await engine.services.runs.replay(runId);
      await engine.waitForRun(replay.runId, ['waiting']);
      expect(await engine.services.runs.cancel(runId)).toMatchObject({ acting: [], notRun: 1, children: 0 });
      expect((await engine.services.runs.get(child!.id)).run.status).toBe('needs_review');

      await engine.services.runs.resolve(child!.id, 'invoice', 'happened');
      const replayed = await engine.waitForRun(replay.runId, ['succeeded', 'failed', 'needs_review'], 10_000);
      expect(replayed.status).toBe('succeeded');
      expect((await engine.services.runs.view(replayed.id)).steps.find((step) => step.nodeId === 'call')).toMatchObject({ status: 'duplicate', child: { runId: child!.id, status: 'succeeded' } });
      expect(await runsOfFlow(childFlowId)).toHaveLength(1);
      expect(plain.calls).toHaveLength(1);
      plain.behave = () => ({ kind: 'ok' });
    });

    it('inside a For each, each item starts its own child under its own key, and a replay starts none', async () => {
      honouring.reset();
      const childFlowId = await engine.publish(invoiceFlow(honouring.url, { name: 'Child per line' }));
      const parentId = await engine.publish({
        format: 'onceflow/v1', name: 'Lines', sampleInput: { items: [{ order: { id: 'L0', total: 1 } }] },
        nodes: [
          { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
          { id: 'loop', type: 'for.each', position: { x: 200, y: 0 }, data: { items: '{{ trigger.body.items }}', concurrency: 3 } },
          { id: 'call', type: 'flow.run', parentId: 'loop', position: { x: 20, y: 40 }, data: { flowId: childFlowId, input: '{{ item }}', key: '{{ item.order.id }}:child' } },
        ],
        edges: [{ id: 'e1', source: 'start', target: 'loop' }],
      });
      const items = ['L1', 'L2', 'L3', 'L4'].map((id) => ({ order: { id, total: 2 } }));
      const run = await engine.runAndWait(parentId, { items });
      expect(run.status).toBe('succeeded');
      expect((await childrenOf(run.id)).map((child) => [child.parentNodeId, child.status]).sort()).toEqual([['call@1', 'succeeded'], ['call@2', 'succeeded'], ['call@3', 'succeeded'], ['call@4', 'succeeded']]);
      const loop = (await engine.services.runs.view(run.id)).steps.find((step) => step.nodeId === 'loop');
      expect((loop?.output as Array<{ result: { order: string } }>).map((output) => output.result.order)).toEqual(['L1', 'L2', 'L3', 'L4']);

      const replay = await engine.services.runs.replay(run.id);
      expect((await engine.waitForRun(replay.runId)).status).toBe('succeeded');
      expect(await runsOfFlow(childFlowId)).toHaveLength(4);
      expect(honouring.totalEffects()).toBe(4);
    });

    it('a test run, and a proof, start children as test runs of the same test, never live ones', async () => {
      honouring.reset();
      const childFlowId = await engine.publish(invoiceFlow(honouring.url, { name: 'Child of a test' }));
      const parentId = await engine.publish(parentFlow(childFlowId, { name: 'Tested parent' }));
      const started = await engine.services.tests.start({ flowId: parentId, input: { order: { id: 'T1', total: 1 } } });
      const parent = await engine.waitForRun(started.runId);
      expect(parent.status).toBe('succeeded');
      const [child] = await childrenOf(parent.id);
      expect(child).toMatchObject({ testScope: parent.testScope, testTargets: 'stand-ins', status: 'succeeded' });
      expect(honouring.calls).toHaveLength(0);
      expect(await runsOfFlow(childFlowId)).toHaveLength(1);
      expect((await engine.services.runs.list({ flowId: childFlowId, mode: 'live' })).runs).toHaveLength(0);

      // Prove it: run twice, ten at once, stopped hard after the child started, sent again —
      // one child per key each time, all of them test runs.
      const { proofId } = await engine.services.proofs.start(parentId);
      let report = await engine.services.proofs.get(proofId);
      for (let look = 0; report.status === 'running' && look < 1000; look++) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        report = await engine.services.proofs.get(proofId);
      }
      // A failed check's own words (its summary and each step's sentence) say which verdict failed.
      const failedChecks = report.checks.filter((check) => !check.passed).map(({ check, summary, steps }) => ({ check, summary, steps: steps.map((step) => step.sentence) }));
      expect(report.checks.map((check) => [check.check, check.passed]), JSON.stringify(failedChecks)).toEqual([['twice', true], ['concurrent', true], ['killed', true], ['webhook', true], ['keys', true]]);
      expect(honouring.calls).toHaveLength(0);
      expect((await engine.services.runs.list({ flowId: childFlowId, mode: 'live' })).runs).toHaveLength(0);
    });

    it('refuses to publish a flow that runs itself, directly or through another, or a flow that cannot be run', async () => {
      const flows = engine.services.flows;
      const a = await engine.publish(invoiceFlow(honouring.url, { name: 'Cycle A' }));
      const b = await engine.publish(parentFlow(a, { name: 'Cycle B' }));
      // A now runs B, which runs A: refused, naming the chain.
      await flows.saveDraft(a, parentFlow(b, { name: 'Cycle A' }));
      await expect(flows.publish(a)).rejects.toThrow('Step "Bill the order" (call) runs "Cycle B", which leads back to this flow ("Cycle A" → "Cycle B" → "Cycle A")');
      expect((await flows.versions(a)).map((version) => version.version)).toEqual([1]);

      const self = await engine.publish(invoiceFlow(honouring.url, { name: 'Selfish' }));
      await flows.saveDraft(self, parentFlow(self, { name: 'Selfish' }));
      await expect(flows.publish(self)).rejects.toThrow('runs this flow itself');

      const unpublished = (await flows.create({ name: 'Not yet' })).id;
      await flows.saveDraft(self, parentFlow(unpublished, { name: 'Selfish' }));
      await expect(flows.publish(self)).rejects.toThrow('runs "Not yet", which has no published version yet. Publish "Not yet" first.');

      // An imported flow naming a flow this server does not have is kept as a draft that says so.
      const imported = await flows.import(parentFlow('flow_elsewhere', { name: 'From elsewhere' }));
      expect(imported.version).toBeNull();
      expect(imported.problems.map((problem) => problem.message)).toContain('Step "Bill the order" (call) runs a flow that does not exist on this server (flow_elsewhere). Choose the flow to run.');
      expect((await flows.export(imported.id)).nodes.find((node) => node.id === 'call')?.data).toMatchObject({ flowId: 'flow_elsewhere', key: '{{ trigger.body.order.id }}:child' });

      // A flow deleted after the parent was published fails the step when a run gets there, saying so.
      const gone = await engine.publish(invoiceFlow(honouring.url, { name: 'Soon gone' }));
      const orphan = await engine.publish(parentFlow(gone, { name: 'Orphan' }));
      await flows.delete(gone);
      const run = await engine.runAndWait(orphan, { order: { id: 'G1', total: 1 } });
      expect(run.status).toBe('failed');
      expect(run.error).toBe(`The flow this step runs (${gone}) does not exist on this server. Choose another flow in step "Bill the order".`);
      expect(await childrenOf(run.id)).toHaveLength(0);
    });
  });
}
