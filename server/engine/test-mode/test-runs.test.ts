/**
 * Test runs on each database, over real HTTP with a real receiver: a test never meets a
 * live key in either direction, sends its side effects to the stand-ins unless asked,
 * runs the draft without publishing it, and stays out of the run history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../app.ts';
import { hookUrl, startApp, waitForRunStatus } from '../../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../../testing/databases.ts';
import { postJson } from '../../testing/http-client.ts';
import { startReceiver, type Receiver } from '../../testing/receiver.ts';
import { webhookEffectFlow } from '../../testing/webhook-flows.ts';
import { getRun } from '../../store/runs.ts';
import { listEvents } from '../../store/timeline.ts';

for (const kind of testDatabases()) {
  describe(`test runs on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let receiver: Receiver;

    beforeAll(async () => {
      database = await kind.create();
      server = await startApp(database.url);
      receiver = await startReceiver({ honoursKeys: true });
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await database?.drop();
    });

    async function importFlow(name: string) {
      const { id } = await server.services.flows.import({ ...webhookEffectFlow(receiver.url), name });
      return id;
    }
    const effectsOf = (runId: string) => server.services.tests.standInEffects([runId]);
    const stepEvents = async (runId: string) => (await listEvents(server.services.db, runId, 0, 100)).filter((event) => event.nodeId === 'effect').map((event) => event.type);

    it('a test for order 4417 and then the live webhook for 4417: the live one acts at the real receiver', async () => {
      receiver.reset();
      const flowId = await importFlow('test then live');
      const test = await server.services.tests.start({ flowId, input: { id: '4417' } });
      expect(await waitForRunStatus(server, test.runId)).toMatchObject({ status: 'succeeded', testScope: 'editor', testTargets: 'stand-ins' });
      expect(receiver.calls).toHaveLength(0);
      const [effect] = await effectsOf(test.runId);
      expect(effect).toMatchObject({ receiver: 'payments', idempotencyKey: 'test:editor:4417:effect', nodeId: 'effect' });

      const live = await postJson(await hookUrl(server, flowId), { id: '4417' });
      expect(live.status).toBe(202);
      expect(await waitForRunStatus(server, live.body.runId as string)).toMatchObject({ status: 'succeeded', testScope: null });
      expect(receiver.calls).toHaveLength(1);
      expect(receiver.calls[0]!.key).toBe('4417:effect');
      expect(await stepEvents(live.body.runId as string)).toContain('step.succeeded');
      expect(await stepEvents(live.body.runId as string)).not.toContain('step.duplicate');
    });

    it('the live webhook for an order and then a test for it: the test acts at its stand-in', async () => {
      receiver.reset();
      const flowId = await importFlow('live then test');
      const live = await postJson(await hookUrl(server, flowId), { id: '5521' });
      await waitForRunStatus(server, live.body.runId as string, ['succeeded']);
      const test = await server.services.tests.start({ flowId, input: { id: '5521' } });
      await waitForRunStatus(server, test.runId, ['succeeded']);
      expect(await stepEvents(test.runId)).toContain('step.succeeded');
      expect(await stepEvents(test.runId)).not.toContain('step.duplicate');
      expect(await effectsOf(test.runId)).toHaveLength(1);
      expect(receiver.calls).toHaveLength(1);
    });

    it('a second test with the same input is a duplicate stopped; its stand-in saw one effect', async () => {
      const flowId = await importFlow('test twice');
      const first = await server.services.tests.start({ flowId, input: { id: 'twice' } });
      await waitForRunStatus(server, first.runId, ['succeeded']);
      const second = await server.services.tests.start({ flowId, input: { id: 'twice' } });
      await waitForRunStatus(server, second.runId, ['succeeded']);
      expect(await stepEvents(second.runId)).toContain('step.duplicate');
      expect(await effectsOf(first.runId)).toHaveLength(1);
      expect(await effectsOf(second.runId)).toHaveLength(0);
    });

    it('with the real services, the receiver gets the key with its test prefix', async () => {
      receiver.reset();
      const flowId = await importFlow('real services');
      expect(await server.services.tests.realServices(flowId)).toEqual([{ nodeId: 'effect', label: 'effect', target: `POST ${receiver.url}/effects` }]);
      const test = await server.services.tests.start({ flowId, input: { id: 'real' }, targets: 'real-services' });
      await waitForRunStatus(server, test.runId, ['succeeded']);
      expect(receiver.calls.map((call) => call.key)).toEqual(['test:editor-real:real:effect']);
      expect(await effectsOf(test.runId)).toHaveLength(0);
    });

    it('tests the draft without publishing it, and stays out of the run history', async () => {
      const flowId = await importFlow('draft tested');
      const flow = await server.services.flows.get(flowId);
      const draft = { ...flow.draft, nodes: flow.draft.nodes.map((node) => node.id === 'effect' ? { ...node, data: { ...node.data, key: '{{ trigger.body.id }}:changed' } } : node) };
      await server.services.flows.saveDraft(flowId, draft);
      const test = await server.services.tests.start({ flowId, input: { id: 'draft' } });
      await waitForRunStatus(server, test.runId, ['succeeded']);
      expect((await effectsOf(test.runId))[0]!.idempotencyKey).toBe('test:editor:draft:changed');
      const after = await server.services.flows.get(flowId);
      expect(after.versions.map((version) => version.version)).toEqual([1]);
      const run = await getRun(server.services.db, test.runId);
      const again = await server.services.tests.start({ flowId, input: { id: 'draft-2' } });
      expect((await getRun(server.services.db, again.runId))!.versionId).toBe(run!.versionId);

      const live = await server.services.runs.list({ flowId });
      expect(live.runs.map((listed) => listed.id)).not.toContain(test.runId);
      const tests = await server.services.runs.list({ flowId, mode: 'test' });
      expect(tests.runs.map((listed) => listed.id)).toEqual([again.runId, test.runId]);
    });

    it('a test of state transitions moves its own copy of the record, not the live one', async () => {
      const { id: flowId } = await server.services.flows.import({
        format: 'onceflow/v1', name: 'test entities', sampleInput: {},
        nodes: [
          { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
          { id: 'state', type: 'state.transition', position: { x: 200, y: 0 }, data: { entity: 'order:{{ trigger.body.id }}', states: ['new', 'paid'], to: 'paid', onStale: 'stop' } },
        ],
        edges: [{ id: 'e1', source: 'start', target: 'state' }],
      });
      const test = await server.services.tests.start({ flowId, input: { id: 'e1' } });
      await waitForRunStatus(server, test.runId, ['succeeded']);
      const live = await server.services.runs.start({ flowId, input: { id: 'e1' } });
      await waitForRunStatus(server, live.runId, ['succeeded']);
      const liveStep = (await listEvents(server.services.db, live.runId, 0, 100)).find((event) => event.nodeId === 'state' && event.type === 'step.succeeded');
      expect(liveStep?.data).toMatchObject({ output: { applied: true, to: 'paid' } });
    });

    it('the stand-ins serve tests on a server whose public sandbox is off', async () => {
      const closed = await startApp(database.url, { ONCEFLOW_SANDBOX: 'false' });
      try {
        expect(closed.services.sandbox).toBeUndefined();
        const { id: flowId } = await closed.services.flows.import({ ...webhookEffectFlow(receiver.url), name: 'sandbox off' });
        const test = await closed.services.tests.start({ flowId, input: { id: 'closed' } });
        expect(await waitForRunStatus(closed, test.runId)).toMatchObject({ status: 'succeeded' });
        expect(await closed.services.tests.standInEffects([test.runId])).toEqual([expect.objectContaining({ receiver: 'payments', nodeId: 'effect' })]);
      } finally {
        await closed.stop();
      }
    });

    it('a live step may not claim under a scope kept for tests', async () => {
      const { id: flowId } = await server.services.flows.import({ ...webhookEffectFlow(receiver.url), name: 'reserved scope' });
      const flow = await server.services.flows.get(flowId);
      const draft = { ...flow.draft, nodes: flow.draft.nodes.map((node) => node.id === 'effect' ? { ...node, data: { ...node.data, keyScope: 'test:editor' } } : node) };
      await server.services.flows.saveDraft(flowId, draft);
      // The scope changes against v1, so the publish confirms the key change.
      await server.services.flows.publish(flowId, 'admin', { confirmKeyChanges: true });
      const live = await postJson(await hookUrl(server, flowId), { id: 'reserved' });
      const run = await waitForRunStatus(server, live.body.runId as string);
      expect(run.status).toBe('failed');
      expect(run.error).toContain('kept for test runs');
    });
  });
}
