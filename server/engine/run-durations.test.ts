/**
 * The runs list and the run page give one figure for how long a run took, although the
 * timeline's events are stamped a moment apart from the run row's writes. Here the gap is
 * made wide and certain: the worker reads its secrets slowly (30 ms between taking a run
 * and recording `run.started`), and every reading of its clock is a millisecond past the
 * last (the ending event and the row's end apart).
 *
 *   start ──▶ invoice (fails at first) ──▶ after
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { attemptSpans } from '../../core/attempt-spans.ts';
import type { Services } from '../services.ts';
import { invoiceFlow, workerOnDatabase } from '../testing/engine-harness.ts';
import { testDatabases } from '../testing/databases.ts';
import { useReceiver } from '../testing/suite-fixtures.ts';
import { useTestServices } from '../testing/test-services.ts';
import { untilRunStatus } from '../testing/wait-for.ts';
import { systemClock, type Clock } from './types.ts';

const SLOW_SECRETS_MS = 30;

for (const kind of testDatabases()) {
  describe(`one duration in the runs list and on the run page, on ${kind.name}`, () => {
    const { services: madeServices, workers } = useTestServices(kind);
    const receiver = useReceiver({ honoursKeys: true });
    let services: Services;
    beforeAll(() => {
      services = madeServices();
      let last = 0;
      const clock: Clock = { now: () => (last = Math.max(Date.now(), last + 1)), sleep: systemClock.sleep };
      const loadSecrets = async () => {
        await systemClock.sleep(SLOW_SECRETS_MS);
        return services.secrets.values();
      };
      const worker = workerOnDatabase(services, services.db, { concurrency: 4, clock, loadSecrets });
      workers.push(worker);
      worker.start();
    });

    /** Each attempt's span as the run page works it out, from what the page is sent. */
    const pageSpans = async (runId: string) => {
      const { run, timeline } = await services.runs.get(runId);
      return attemptSpans(timeline, run);
    };
    const listed = async (flowId: string) => (await services.runs.list({ flowId })).runs[0]!;

    it('says the same for a first attempt and for a rerun', async () => {
      receiver().behave = () => ({ kind: 'status', status: 422 });
      const { id: flowId } = await services.flows.import(invoiceFlow(receiver().url, { retryMax: 0 }));
      const { runId } = await services.runs.start({ flowId, input: { order: { id: 'D-7', total: 1 } } });
      await untilRunStatus(services.db, runId, ['failed']);

      const { run, timeline } = await services.runs.get(runId);
      const startedEvent = timeline.find((event) => event.type === 'run.started')!.createdAt;
      const failedEvent = timeline.find((event) => event.type === 'run.failed')!.createdAt;
      // The gaps this is about: the events were stamped apart from the row's moments.
      expect(startedEvent - run.startedAt!).toBeGreaterThanOrEqual(SLOW_SECRETS_MS);
      expect(run.finishedAt).not.toBe(failedEvent);

      const first = await pageSpans(runId);
      expect(first).toEqual([{ attempt: 1, startedAt: run.startedAt, finishedAt: run.finishedAt }]);
      expect((await listed(flowId)).durationMs).toBe(first[0]!.finishedAt! - first[0]!.startedAt);

      receiver().behave = () => ({ kind: 'ok' });
      await services.runs.rerun(runId);
      await untilRunStatus(services.db, runId, ['succeeded']);
      const spans = await pageSpans(runId);
      expect(spans.map((span) => span.attempt)).toEqual([1, 2]);
      const rerun = await listed(flowId);
      expect(rerun.attempt).toBe(2);
      expect(rerun.durationMs).toBe(spans[1]!.finishedAt! - spans[1]!.startedAt);
      // The first attempt keeps its own figure, from its own events.
      expect(spans[0]!.finishedAt).toBe(failedEvent);
    });
  });
}
