/**
 * Pausing a flow on each database, over real HTTP with a real receiver: deliveries while
 * paused are acknowledged, deduplicated and held, never executed; Resume runs them once
 * each in arrival order; a run already running holds after its current step, and one
 * whose delay ends during the pause holds before its next step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { hookUrl, startApp, waitForRunStatus, waitUntilSettled } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { postJson } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { until } from '../testing/wait-for.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';

/** A webhook, a slow first call, then a side effect: room to pause between the two. */
function twoStepFlow(receiverUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Two steps',
    sampleInput: { id: 'evt_1' },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'first', type: 'http.request', position: { x: 200, y: 0 }, data: {
        sideEffect: false,
        request: { method: 'POST', url: `${receiverUrl}/first`, body: '{"ref": "first:{{ trigger.body.id }}"}' },
      } },
      { id: 'second', type: 'http.request', position: { x: 400, y: 0 }, data: {
        sideEffect: true, key: '{{ trigger.body.id }}:second',
        request: { method: 'POST', url: `${receiverUrl}/second`, body: '{"ref": "second:{{ trigger.body.id }}"}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'first' }, { id: 'e2', source: 'first', target: 'second' }],
  };
}

/** A webhook, a one-second delay, then a side effect. */
function delayedFlow(receiverUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Delayed',
    sampleInput: { id: 'evt_1' },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'wait', type: 'delay', position: { x: 200, y: 0 }, data: { for: '1s' } },
      { id: 'after', type: 'http.request', position: { x: 400, y: 0 }, data: {
        sideEffect: true, key: '{{ trigger.body.id }}:after',
        request: { method: 'POST', url: `${receiverUrl}/after`, body: '{"ref": "after:{{ trigger.body.id }}"}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'wait' }, { id: 'e2', source: 'wait', target: 'after' }],
  };
}

for (const kind of testDatabases()) {
  describe(`pausing a flow on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let receiver: Receiver;

    beforeAll(async () => {
      database = await kind.create();
      server = await startApp(database.url);
      receiver = await startReceiver({ honoursKeys: false });
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await database?.drop();
    });

    it('holds deliveries while paused (acknowledged, deduplicated, never executed) and runs each once, in arrival order, on Resume', async () => {
      receiver.reset();
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      await server.services.pause.pause(flowId, 'alice');

      const ids = Array.from({ length: 20 }, (_, index) => `evt_${index}`);
      const runIds = new Map<string, string>();
      for (const id of ids) {
        const answer = await postJson(url, { id });
        expect(answer.status).toBe(202);
        runIds.set(id, answer.body.runId as string);
      }
      for (const id of ids.slice(0, 5)) {
        const repeat = await postJson(url, { id });
        expect(repeat.status).toBe(200);
        expect(repeat.body).toMatchObject({ duplicate: true, runId: runIds.get(id) });
      }

      const state = await server.services.pause.state(flowId);
      expect(state).toMatchObject({ paused: true, pausedBy: 'alice', waiting: 20 });
      const statuses = await server.services.db.all<{ status: string }>(`SELECT status FROM runs WHERE flow_id = ?`, [flowId]);
      expect(statuses.map((row) => row.status)).toEqual(Array(20).fill('held'));
      expect(receiver.calls).toHaveLength(0);

      const resumed = await server.services.pause.resume(flowId, 'bob');
      expect(resumed).toEqual({ released: 20, dropped: 0 });
      await waitUntilSettled(server, flowId, 20);

      const rows = await server.services.db.all<{ id: string; event_id: string; status: string; seq: number; started_at: number }>(
        `SELECT id, event_id, status, seq, started_at FROM runs WHERE flow_id = ? ORDER BY seq`, [flowId]);
      expect(rows.map((row) => row.event_id)).toEqual(ids);
      expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
      // Leased in arrival order: a later run never started before an earlier one.
      const starts = rows.map((row) => Number(row.started_at));
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
      expect(receiver.effects.size).toBe(20);
      expect([...receiver.effects.values()].every((count) => count === 1)).toBe(true);
      const released = await server.services.db.all<{ data: string }>(
        `SELECT data FROM timeline_events WHERE type = 'run.released' AND run_id = ?`, [runIds.get('evt_0')]);
      expect(released.map((row) => JSON.parse(row.data))).toEqual([{ by: 'bob' }]);
      expect(await server.services.pause.state(flowId)).toMatchObject({ paused: false, waiting: 0 });
    }, 60_000);

    it('a run already running finishes its current step, then holds; Resume continues it from its checkpoints', async () => {
      receiver.reset();
      const { id: flowId } = await server.services.flows.import(twoStepFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      // The pause lands while the first call is in flight; its answer comes after the pause.
      let pausing: Promise<unknown> | undefined;
      receiver.onCall = (call) => {
        if (call.path === '/first') pausing ??= server.services.pause.pause(flowId, 'carol');
      };
      receiver.behave = (call) => (call.path === '/first' ? { kind: 'slow', delayMs: 800 } : { kind: 'ok' });
      const { body } = await postJson(url, { id: 'evt_running' });
      const runId = body.runId as string;

      await waitForRunStatus(server, runId, ['held']);
      await pausing;
      expect(receiver.effects.get('first:evt_running')).toBe(1);
      expect(receiver.effects.get('second:evt_running')).toBeUndefined();
      const checkpoints = await server.services.db.all<{ node_id: string; status: string }>(`SELECT node_id, status FROM checkpoints WHERE run_id = ?`, [runId]);
      expect(checkpoints).toEqual([{ node_id: 'first', status: 'succeeded' }]);
      const held = await server.services.db.get<{ lease_owner: string | null }>(`SELECT lease_owner FROM runs WHERE id = ?`, [runId]);
      expect(held?.lease_owner).toBeNull();

      receiver.onCall = undefined;
      receiver.behave = () => ({ kind: 'ok' });
      await server.services.pause.resume(flowId, 'carol');
      await waitForRunStatus(server, runId, ['succeeded']);
      expect(receiver.effects.get('first:evt_running')).toBe(1);
      expect(receiver.effects.get('second:evt_running')).toBe(1);
    }, 30_000);

    it('a run whose delay ends while its flow is paused holds before its next step; Resume runs the step once', async () => {
      receiver.reset();
      receiver.behave = () => ({ kind: 'ok' });
      const { id: flowId } = await server.services.flows.import(delayedFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      const { body } = await postJson(url, { id: 'evt_delayed' });
      const runId = body.runId as string;
      await waitForRunStatus(server, runId, ['waiting']);
      await server.services.pause.pause(flowId, 'dan');
      // The delay ends during the pause: the run is leased, sees the pause and holds.
      await waitForRunStatus(server, runId, ['held']);
      expect(receiver.effects.get('after:evt_delayed')).toBeUndefined();
      const { timeline } = await server.services.runs.get(runId);
      expect(timeline.filter((event) => event.type === 'run.held').map((event) => event.data)).toEqual([{ by: 'dan', reason: 'paused' }]);

      await server.services.pause.resume(flowId, 'dan');
      await waitForRunStatus(server, runId, ['succeeded']);
      expect(receiver.effects.get('after:evt_delayed')).toBe(1);
    }, 30_000);

    it('Resume can drop the schedule fires missed while paused; webhook runs still run', async () => {
      receiver.reset();
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      await server.services.pause.pause(flowId, 'dave');
      const { body } = await postJson(url, { id: 'evt_kept' });
      // A schedule fire recorded while paused, as the scheduler records it.
      const missed = await server.services.runs.start({ flowId, input: { scheduledFor: 'now' }, by: 'schedule' });
      await server.services.db.run(`UPDATE runs SET trigger_kind = 'schedule' WHERE id = ?`, [missed.runId]);
      expect(await server.services.pause.state(flowId)).toMatchObject({ waiting: 2, missedScheduleFires: 1 });

      expect(await server.services.pause.resume(flowId, 'dave', { dropScheduleFires: true })).toEqual({ released: 1, dropped: 1 });
      await waitForRunStatus(server, body.runId as string, ['succeeded']);
      await until('the dropped fire to stay cancelled', async () => (await server.services.runs.get(missed.runId)).run.status === 'cancelled');
    }, 30_000);

    it('a rerun in a paused flow waits as held and is never leased; Resume runs it', async () => {
      receiver.reset();
      receiver.behave = (call) => (call.path === '/second' ? { kind: 'status', status: 400 } : { kind: 'ok' });
      const { id: flowId } = await server.services.flows.import(twoStepFlow(receiver.url));
      const { body } = await postJson(await hookUrl(server, flowId), { id: 'evt_rerun_paused' });
      const runId = body.runId as string;
      await waitForRunStatus(server, runId, ['failed']);
      receiver.behave = () => ({ kind: 'ok' });

      await server.services.pause.pause(flowId, 'alice');
      await server.services.runs.rerun(runId, 'bob');
      const held = await server.services.db.get<{ status: string; lease_owner: string | null; attempt: number }>(
        `SELECT status, lease_owner, attempt FROM runs WHERE id = ?`, [runId]);
      expect(held).toMatchObject({ status: 'held', lease_owner: null, attempt: 2 });
      expect(receiver.effects.get('second:evt_rerun_paused')).toBeUndefined();

      await server.services.pause.resume(flowId, 'alice');
      await waitForRunStatus(server, runId, ['succeeded']);
      expect(receiver.effects.get('second:evt_rerun_paused')).toBe(1);
    }, 30_000);

    it('a held run can be cancelled, and Resume then leaves it cancelled', async () => {
      receiver.reset();
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const url = await hookUrl(server, flowId);
      await server.services.pause.pause(flowId, 'alice');
      const { body } = await postJson(url, { id: 'evt_cancel_held' });
      const runId = body.runId as string;
      await server.services.runs.cancel(runId, 'carol');
      expect((await server.services.runs.view(runId)).run.status).toBe('cancelled');
      expect(await server.services.pause.resume(flowId, 'bob')).toEqual({ released: 0, dropped: 0 });
      expect((await server.services.runs.view(runId)).run.status).toBe('cancelled');
      expect(receiver.calls).toHaveLength(0);
    });

    it('refuses to pause or resume a flow that does not exist, in plain words', async () => {
      await expect(server.services.pause.pause('flow_missing', 'erin')).rejects.toThrow('There is no flow with id flow_missing');
      await expect(server.services.pause.resume('flow_missing', 'erin')).rejects.toThrow('There is no flow with id flow_missing');
    });
  });
}
