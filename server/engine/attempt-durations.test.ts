/**
 * A rerun's duration in the runs list is its own attempt's: from the worker picking the
 * new attempt up to its end, never counting the time the run sat failed before the rerun.
 *
 *   start ──▶ invoice (fails at first) ──▶ after
 */
import { describe, expect, it } from 'vitest';
import { invoiceFlow } from '../testing/engine-harness.ts';
import { testDatabases } from '../testing/databases.ts';
import { useEngine, useReceiver } from '../testing/suite-fixtures.ts';

for (const kind of testDatabases()) {
  describe(`attempt durations, on ${kind.name}`, () => {
    const receiver = useReceiver({ honoursKeys: true });
    const engine = useEngine(kind);

    it('times a rerun from its own start, not from the first attempt', async () => {
      receiver().behave = () => ({ kind: 'status', status: 422 });
      const flowId = await engine().publish(invoiceFlow(receiver().url, { retryMax: 0 }));
      const failed = await engine().runAndWait(flowId, { order: { id: 'D-1', total: 1 } });
      expect(failed.status).toBe('failed');
      // The first attempt's figure is read back once it has ended, so the rerun starts strictly later.
      const firstListed = (await engine().services.runs.list({ flowId })).runs[0]!;
      expect(firstListed.durationMs).toBe(failed.finishedAt! - failed.startedAt!);

      receiver().behave = () => ({ kind: 'ok' });
      await engine().services.runs.rerun(failed.id);
      const done = await engine().waitForRun(failed.id, ['succeeded']);
      const { timeline } = await engine().services.runs.get(failed.id);
      const secondStart = timeline.find((event) => event.type === 'run.started' && event.attempt === 2)!.createdAt;
      const listed = (await engine().services.runs.list({ flowId })).runs[0]!;
      expect(listed.attempt).toBe(2);
      expect(listed.durationMs).toBe(done.finishedAt! - secondStart);
      expect(secondStart).toBeGreaterThan(failed.finishedAt!);
      expect(listed.durationMs).toBeLessThan(done.finishedAt! - done.startedAt!);
    });
  });
}
