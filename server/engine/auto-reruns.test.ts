/**
 * "If a run fails, try it again after 1 minute and 10 minutes" (settings.retryFailedRuns),
 * on each database, against a real receiver on loopback: each failure schedules the next
 * automatic rerun with the run's ending, a due one reruns from the checkpoints and says
 * which it is on the timeline, two workers looking at once rerun it once, the last
 * failure schedules nothing, and a person's rerun drops a pending one.
 */
import { describe, expect, it } from 'vitest';
import { pendingAutoRerun } from '../store/auto-reruns.ts';
import { testDatabases } from '../testing/databases.ts';
import { useEngine, useReceiver } from '../testing/suite-fixtures.ts';
import type { TimelineEvent } from './types.ts';

const MINUTE = 60_000;

/** start → prepare (transform) → send (side effect, keyed by the order) */
function retryingFlow(receiverUrl: string, name: string, delays: string[]) {
  return {
    format: 'onceflow/v1',
    name,
    settings: { retryFailedRuns: delays },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'prepare', type: 'transform', position: { x: 200, y: 0 }, data: { outputs: { ref: '{{ trigger.body.order }}:send' } } },
      { id: 'send', type: 'http.request', position: { x: 400, y: 0 }, data: {
        label: 'Send', sideEffect: true, key: '{{ trigger.body.order }}:send', receiverKeyHeader: 'Idempotency-Key', retry: { max: 1 },
        request: { method: 'POST', url: `${receiverUrl}/send`, body: '{"ref": "{{ steps.prepare.output.ref }}"}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'prepare' }, { id: 'e2', source: 'prepare', target: 'send' }],
  };
}

const ofType = (timeline: TimelineEvent[], type: string) => timeline.filter((event) => event.type === type);

for (const kind of testDatabases()) {
  describe(`automatic reruns on ${kind.name}`, () => {
    const receiver = useReceiver({ honoursKeys: true });
    const engine = useEngine(kind);

    it('reruns a failed run after each delay, says which rerun it is, and stops after the last', async () => {
      receiver().reset();
      receiver().behave = () => ({ kind: 'status', status: 503 });
      const flowId = await engine().publish(retryingFlow(receiver().url, 'Retried later', ['1m', '10m']));
      const failedAt = Date.now();
      const first = await engine().runAndWait(flowId, { order: 'A1' });
      expect(first.status).toBe('failed');
      const scheduled = ofType((await engine().services.runs.get(first.id)).timeline, 'run.rerun_scheduled');
      expect(scheduled).toHaveLength(1);
      expect(scheduled[0]?.data).toMatchObject({ number: 1, of: 2 });
      const at = Number(scheduled[0]?.data?.at);
      expect(at).toBeGreaterThanOrEqual(failedAt + MINUTE);
      expect(await pendingAutoRerun(engine().services.db, first.id)).toEqual({ at, done: 0 });

      // Not yet due: nothing happens.
      expect(await engine().services.autoReruns.runDue(at - 1)).toBe(0);
      // Due, with two workers looking at once: one rerun.
      const started = await Promise.all([engine().services.autoReruns.runDue(at), engine().services.autoReruns.runDue(at)]);
      expect(started[0] + started[1]).toBe(1);
      // The rerun moved the run to queued before runDue returned: wait for its end.
      const second = await engine().waitForRun(first.id);
      expect(second.attempt).toBe(2);
      expect(second.status).toBe('failed');
      let { timeline } = await engine().services.runs.get(first.id);
      expect(ofType(timeline, 'run.rerun')[0]?.data).toMatchObject({ by: 'automatic', automatic: { number: 1, of: 2 } });
      // From the checkpoints: the transform is not done again.
      expect(timeline.filter((event) => event.attempt === 2 && event.nodeId === 'prepare').map((event) => event.type)).toEqual(['step.skipped']);
      expect(ofType(timeline, 'run.rerun_scheduled').at(-1)?.data).toMatchObject({ number: 2, of: 2 });

      // The second and last: the receiver answers now, and the run succeeds.
      receiver().behave = () => ({ kind: 'ok' });
      expect(await engine().services.autoReruns.runDue(Date.now() + 11 * MINUTE)).toBe(1);
      const third = await engine().waitForRun(first.id);
      expect(third).toMatchObject({ attempt: 3, status: 'succeeded' });
      ({ timeline } = await engine().services.runs.get(first.id));
      expect(ofType(timeline, 'run.rerun').map((event) => event.data?.automatic)).toEqual([{ number: 1, of: 2 }, { number: 2, of: 2 }]);
      expect(receiver().effects.size).toBe(1);
      expect(await engine().services.autoReruns.runDue(Date.now() + 24 * 60 * MINUTE)).toBe(0);
    });

    it('after the last automatic rerun fails, none is scheduled; a person’s rerun drops a pending one', async () => {
      receiver().reset();
      receiver().behave = () => ({ kind: 'status', status: 503 });
      const flowId = await engine().publish(retryingFlow(receiver().url, 'Retried once', ['30s']));
      const run = await engine().runAndWait(flowId, { order: 'B1' });
      expect(run.status).toBe('failed');
      // A failure that will be tried again alerts nobody yet; the last one does (alerts/outbox.ts).
      const alerts = async () => (await engine().services.db.all<{ kind: string }>('SELECT kind FROM alert_outbox WHERE run_id = ?', [run.id])).map((row) => row.kind);
      expect(await alerts()).toEqual([]);
      expect(await engine().services.autoReruns.runDue(Date.now() + MINUTE)).toBe(1);
      const last = await engine().waitForRun(run.id);
      expect(last).toMatchObject({ attempt: 2, status: 'failed' });
      expect(await pendingAutoRerun(engine().services.db, run.id)).toBeNull();
      expect(await alerts()).toEqual(['failed']);
      const { timeline } = await engine().services.runs.get(run.id);
      expect(ofType(timeline, 'run.rerun_scheduled')).toHaveLength(1);

      // Another run: it fails, one automatic rerun is pending; a person reruns it first.
      const other = await engine().runAndWait(flowId, { order: 'B2' });
      expect(await pendingAutoRerun(engine().services.db, other.id)).not.toBeNull();
      await engine().services.runs.rerun(other.id, 'alice');
      expect(await engine().waitForRun(other.id)).toMatchObject({ attempt: 2, status: 'failed' });
      // It failed again by hand: its one automatic rerun is still to come (none was used).
      expect(await pendingAutoRerun(engine().services.db, other.id)).toMatchObject({ done: 0 });
    });

    it('a test run never reruns itself', async () => {
      receiver().reset();
      receiver().behave = () => ({ kind: 'status', status: 503 });
      const flowId = await engine().publish(retryingFlow(receiver().url, 'Tested', ['1m']));
      const { runId } = await engine().services.tests.start({ flowId, input: { order: 'T1' }, targets: 'real-services' });
      const run = await engine().waitForRun(runId);
      expect(run.status).toBe('failed');
      expect(await pendingAutoRerun(engine().services.db, runId)).toBeNull();
    });
  });
}
