/**
 * For each through the whole step protocol, on each database, against real receivers on
 * loopback: every item's side effect happens once under its own key, a failed item is
 * resumed by a rerun without redoing the items before it, concurrency is a ceiling the
 * receiver can see, and the list's limit is checked before any item acts.
 *
 *   start (manual) ──► loop (for.each over trigger.body.items) ──► after
 *                       └ send (http.request, key "{{ trigger.body.batch }}:{{ item.sku }}")
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { loopFlow, loopInput } from '../testing/loop-flows.ts';
import { useEngine, useReceiver } from '../testing/suite-fixtures.ts';
import { loadCheckpoints } from '../store/timeline.ts';
import type { TimelineEvent } from './types.ts';

const events = (timeline: TimelineEvent[], nodeId: string, type?: string) =>
  timeline.filter((event) => event.nodeId === nodeId && (type === undefined || event.type === type));

for (const kind of testDatabases()) {
  describe(`For each on ${kind.name}`, () => {
    const honouring = useReceiver({ honoursKeys: true });
    const engine = useEngine(kind);

    it('100 items: each item acts once under its own key, and a replay of the batch acts on none', async () => {
      honouring().reset();
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Hundred' }));
      const input = loopInput('H', 100);
      const run = await engine().runAndWait(flowId, input);
      expect(run.status).toBe('succeeded');
      expect(honouring().effects.size).toBe(100);
      expect([...honouring().effects.values()].every((count) => count === 1)).toBe(true);
      expect(honouring().calls.map((call) => (call.body as { position: number }).position)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));

      const { timeline, steps } = await engine().services.runs.get(run.id);
      const loopOutput = steps.find((step) => step.nodeId === 'loop')?.output as Array<{ body: { key: string } }>;
      expect(loopOutput).toHaveLength(100);
      expect(loopOutput[36]?.body.key).toBe('H:H-37');
      expect(events(timeline, 'loop', 'step.succeeded')[0]?.data).toMatchObject({ summary: { items: 100, done: 100, duplicates: 0, failed: 0 } });
      expect(steps.find((step) => step.nodeId === 'after')?.output).toEqual({ first: 'H:H-1' });

      // The same batch again: every key was done, so every item is a duplicate stopped — as its preview says.
      const preview = await engine().services.runs.replayPreview(run.id);
      expect(preview.steps.find((step) => step.nodeId === 'send')).toMatchObject({ action: 'deduplicate', items: { skip: 0, deduplicate: 100, act: 0, review: 0 } });
      const replay = await engine().services.runs.replay(run.id);
      const again = await engine().waitForRun(replay.runId);
      expect(again.status).toBe('succeeded');
      expect(honouring().totalEffects()).toBe(100);
      const replayed = await engine().services.runs.get(again.id);
      expect(replayed.timeline.filter((event) => event.type === 'step.duplicate')).toHaveLength(100);
      expect(events(replayed.timeline, 'loop', 'step.succeeded')[0]?.data).toMatchObject({ summary: { items: 100, done: 0, duplicates: 100 } });
      expect(replayed.steps.find((step) => step.nodeId === 'loop')?.loop).toMatchObject({ items: 100, done: 0, duplicates: 100, failed: 0 });
    });

    it('pausing the flow stops the list between items; Resume goes on from the first item not done', async () => {
      honouring().reset();
      // Slow items, so the pause lands with most of the list still to go.
      honouring().behave = () => ({ kind: 'slow', delayMs: 15 });
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Paused list', concurrency: 2 }));
      const { runId } = await engine().services.runs.start({ flowId, input: loopInput('P', 200) });
      await expect.poll(() => honouring().effects.size, { timeout: 10_000 }).toBeGreaterThan(5);
      await engine().services.pause.pause(flowId, 'alice');
      const held = await engine().waitForRun(runId, ['held', 'succeeded', 'failed']);
      expect(held.status).toBe('held');
      const doneWhenHeld = honouring().effects.size;
      expect(doneWhenHeld).toBeLessThan(200);
      // Held means nothing more is sent while the flow stays paused.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(honouring().effects.size).toBe(doneWhenHeld);

      honouring().behave = () => ({ kind: 'ok' });
      await engine().services.pause.resume(flowId, 'alice');
      const finished = await engine().waitForRun(runId, ['succeeded', 'failed', 'needs_review']);
      expect(finished.status, finished.error ?? '').toBe('succeeded');
      expect(honouring().effects.size).toBe(200);
      expect([...honouring().effects.values()].every((count) => count === 1)).toBe(true);
      const { timeline } = await engine().services.runs.get(runId);
      expect(timeline.filter((event) => event.type === 'run.held')).toHaveLength(1);
      // Items recorded before the hold are skipped after Resume, not sent again.
      const skipped = timeline.filter((event) => event.type === 'step.skipped' && event.nodeId?.startsWith('send@'));
      expect(skipped.length).toBe(doneWhenHeld);
    });

    it('item 37 of 100 is refused; fixed and rerun, items 1–36 are skipped, 37 acts and 38–100 run', async () => {
      honouring().reset();
      let refusing = true;
      honouring().behave = (call) => (refusing && call.ref === 'R:R-37' ? { kind: 'status', status: 422 } : { kind: 'ok' });
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Refused item' }));
      const failed = await engine().runAndWait(flowId, loopInput('R', 100));
      expect(failed.status).toBe('failed');
      expect(failed.error).toContain('Item 37 of 100 failed');
      expect(honouring().effects.size).toBe(36);
      expect(honouring().calls.some((call) => call.ref === 'R:R-38')).toBe(false);

      // The run page: the loop's counts, and a page of items each with its own steps.
      const page = await engine().services.runs.view(failed.id);
      expect(page.steps.find((step) => step.nodeId === 'loop')?.loop).toMatchObject({ items: 100, done: 36, duplicates: 0, failed: 1, notReached: 63 });
      const items = await engine().services.runs.loopItems(failed.id, 'loop', 34, 4);
      expect(items.total).toBe(100);
      expect(items.items.map((item) => [item.item, item.status])).toEqual([[35, 'succeeded'], [36, 'succeeded'], [37, 'failed'], [38, 'not_reached']]);
      expect(items.items[2]?.steps[0]).toMatchObject({ nodeId: 'send@37', label: 'Send line — item 37', status: 'failed' });
      expect(items.items[2]?.steps[0]?.lastError).toContain('422');

      // Before the rerun, its preview counts the loop's items: 36 skipped, 37 acts again, 63 act for the first time.
      const preview = await engine().services.runs.rerunPreview(failed.id);
      const send = preview.steps.find((step) => step.nodeId === 'send');
      expect(send).toMatchObject({ action: 'act', sideEffect: true, items: { skip: 36, deduplicate: 0, act: 64, review: 0 } });
      expect(send?.reason).toBe('36 items skipped: already finished; 1 item act again; 63 items run for the first time.');
      expect(preview.counts).toMatchObject({ skip: 36, act: 64, deduplicate: 0 });

      refusing = false;
      const callsBefore = honouring().calls.length;
      await engine().services.runs.rerun(failed.id);
      const rerun = await engine().waitForRun(failed.id, ['succeeded', 'failed', 'needs_review']);
      expect(rerun.status).toBe('succeeded');
      const refs = honouring().calls.slice(callsBefore).map((call) => call.ref);
      expect(refs).toEqual(Array.from({ length: 64 }, (_, i) => `R:R-${i + 37}`));
      expect(honouring().effects.size).toBe(100);
      expect([...honouring().effects.values()].every((count) => count === 1)).toBe(true);

      const { timeline } = await engine().services.runs.get(failed.id);
      const second = timeline.filter((event) => event.attempt === 2);
      for (let item = 1; item <= 36; item++) {
        expect(events(second, `send@${item}`).map((event) => [event.type, event.data?.reason])).toEqual([['step.skipped', 'checkpoint']]);
      }
      expect(events(second, 'send@37').map((event) => event.type)).toEqual(['step.started', 'step.succeeded']);
      expect(events(second, 'send@100', 'step.succeeded')).toHaveLength(1);
      expect(events(second, 'loop', 'step.succeeded')[0]?.data).toMatchObject({ summary: { items: 100, done: 100, resumed: 36 } });
      honouring().behave = () => ({ kind: 'ok' });
    });

    it('a rerun on a newer version runs every item again, and items whose key was done come back as duplicates', async () => {
      honouring().reset();
      honouring().behave = (call) => (call.ref === 'V:V-5' ? { kind: 'status', status: 422 } : { kind: 'ok' });
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Versioned loop' }));
      const failed = await engine().runAndWait(flowId, loopInput('V', 10));
      expect(failed.status).toBe('failed');
      honouring().behave = () => ({ kind: 'ok' });
      // v2 only adds a step after the loop; the body and its key are unchanged.
      const v2 = loopFlow(honouring().url, { name: 'Versioned loop' });
      const nodes: unknown[] = [...v2.nodes, { id: 'tail', type: 'transform', position: { x: 600, y: 0 }, data: { outputs: { done: 'yes' } } }];
      const document = { ...v2, nodes, edges: [...v2.edges, { id: 'e3', source: 'after', target: 'tail' }] };
      await engine().services.flows.saveDraft(flowId, document);
      expect((await engine().services.flows.publish(flowId)).version).toBe(2);

      await engine().services.runs.rerun(failed.id);
      const rerun = await engine().waitForRun(failed.id, ['succeeded', 'failed', 'needs_review']);
      expect(rerun.status).toBe('succeeded');
      expect(honouring().effects.size).toBe(10);
      expect([...honouring().effects.values()].every((count) => count === 1)).toBe(true);
      const { timeline } = await engine().services.runs.get(failed.id);
      const second = timeline.filter((event) => event.attempt === 2);
      expect(events(second, 'send@1').map((event) => event.type)).toEqual(['step.started', 'step.duplicate']);
      expect(events(second, 'send@5').map((event) => event.type)).toEqual(['step.started', 'step.succeeded']);
      expect(events(second, 'loop', 'step.succeeded')[0]?.data).toMatchObject({ summary: { items: 10, done: 6, duplicates: 4 } });
    });

    it('concurrency 5 is a ceiling the receiver can see', async () => {
      honouring().reset();
      honouring().behave = () => ({ kind: 'slow', delayMs: 30 });
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Five at once', concurrency: 5 }));
      const run = await engine().runAndWait(flowId, loopInput('C', 40));
      honouring().behave = () => ({ kind: 'ok' });
      expect(run.status).toBe('succeeded');
      expect(honouring().effects.size).toBe(40);
      expect(honouring().maxInFlight).toBe(5);
      // Results stay in the list's order, whatever order the items finished in.
      const { steps } = await engine().services.runs.get(run.id);
      const output = steps.find((step) => step.nodeId === 'loop')?.output as Array<{ body: { key: string } }>;
      expect(output.map((entry) => entry.body.key)).toEqual(Array.from({ length: 40 }, (_, i) => `C:C-${i + 1}`));
    });

    it('one at a time by default: the receiver never sees two items at once', async () => {
      honouring().reset();
      honouring().behave = () => ({ kind: 'slow', delayMs: 5 });
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'One at a time' }));
      const run = await engine().runAndWait(flowId, loopInput('O', 10));
      honouring().behave = () => ({ kind: 'ok' });
      expect(run.status).toBe('succeeded');
      expect(honouring().maxInFlight).toBe(1);
    });

    it('continue with the rest: the loop finishes and its list and summary report the failed items', async () => {
      honouring().reset();
      honouring().behave = (call) => (call.ref === 'K:K-3' || call.ref === 'K:K-7' ? { kind: 'status', status: 400 } : { kind: 'ok' });
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Continue', onItemError: 'continue', concurrency: 3 }));
      const run = await engine().runAndWait(flowId, loopInput('K', 10));
      honouring().behave = () => ({ kind: 'ok' });
      expect(run.status).toBe('succeeded');
      expect(honouring().effects.size).toBe(8);
      const { timeline, steps } = await engine().services.runs.get(run.id);
      const output = steps.find((step) => step.nodeId === 'loop')?.output as unknown[];
      expect(output[2]).toMatchObject({ failed: true, item: 3 });
      expect(output[6]).toMatchObject({ failed: true, item: 7 });
      expect(output[0]).toMatchObject({ status: 200 });
      const done = events(timeline, 'loop', 'step.succeeded')[0]?.data;
      expect(done).toMatchObject({ summary: { items: 10, done: 8, failed: 2 } });
      expect((done?.failedItems as Array<{ item: number }>).map((failure) => failure.item)).toEqual([3, 7]);
      expect(events(timeline, 'send@3', 'step.failed')).toHaveLength(1);
    });

    // Item 3's refusal is answered only after item 7's, so the lanes finish them out of order.
    const sevenFailsFirst = () => {
      let sevenRefused!: () => void;
      const refused = new Promise<void>((resolve) => { sevenRefused = resolve; });
      return (call: { ref: string | undefined }) => {
        if (call.ref?.endsWith('-7')) {
          sevenRefused();
          return { kind: 'status' as const, status: 400 };
        }
        if (call.ref?.endsWith('-3')) return { kind: 'status' as const, status: 400, after: refused.then(() => new Promise((resolve) => setTimeout(resolve, 150))) };
        return { kind: 'ok' as const };
      };
    };

    it('items failing out of order are reported in the list\'s order', async () => {
      honouring().reset();
      honouring().behave = sevenFailsFirst();
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Out of order', onItemError: 'continue', concurrency: 3 }));
      const run = await engine().runAndWait(flowId, loopInput('Q', 10));
      honouring().behave = () => ({ kind: 'ok' });
      expect(run.status).toBe('succeeded');
      const { timeline } = await engine().services.runs.get(run.id);
      // Item 7's failure was recorded before item 3's.
      const failedAt = (item: number) => timeline.findIndex((event) => event.nodeId === `send@${item}` && event.type === 'step.failed');
      expect(failedAt(7)).toBeGreaterThanOrEqual(0);
      expect(failedAt(7)).toBeLessThan(failedAt(3));
      const done = events(timeline, 'loop', 'step.succeeded')[0]?.data;
      expect((done?.failedItems as Array<{ item: number }>).map((failure) => failure.item)).toEqual([3, 7]);
    });

    it('stop on a failure: with items failing out of order, the run names the first in the list', async () => {
      honouring().reset();
      honouring().behave = sevenFailsFirst();
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Stop out of order', concurrency: 3 }));
      const run = await engine().runAndWait(flowId, loopInput('S', 10));
      honouring().behave = () => ({ kind: 'ok' });
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/^Item 3 of 10 failed/);
    });

    it('a list longer than Most items is refused before any item acts', async () => {
      honouring().reset();
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Too many', maxItems: 5 }));
      const run = await engine().runAndWait(flowId, loopInput('M', 6));
      expect(run.status).toBe('failed');
      expect(run.error).toContain('The list has 6 items, more than the 5');
      expect(run.error).toContain('No item was run');
      expect(honouring().calls).toHaveLength(0);
      expect((await loadCheckpoints(engine().services.db, run.id)).filter((row) => row.nodeId.includes('@'))).toEqual([]);
    });

    it('Items that are not a list fail the loop with what they were', async () => {
      honouring().reset();
      const flowId = await engine().publish(loopFlow(honouring().url, { name: 'Not a list' }));
      const run = await engine().runAndWait(flowId, { batch: 'N', items: 'A-1, A-2' });
      expect(run.status).toBe('failed');
      expect(run.error).toContain('needs a list in Items, but {{ trigger.body.items }} is the text "A-1, A-2"');
      expect(honouring().calls).toHaveLength(0);
    });

    it('an empty list runs no item and gives an empty list', async () => {
      honouring().reset();
      const document = loopFlow(honouring().url, { name: 'Empty list' });
      document.nodes[3]!.data = { outputs: { first: '{{ steps.loop.output }}' } };
      const flowId = await engine().publish(document);
      const run = await engine().runAndWait(flowId, { batch: 'E', items: [] });
      expect(run.status).toBe('succeeded');
      const { steps } = await engine().services.runs.get(run.id);
      expect(steps.find((step) => step.nodeId === 'loop')?.output).toEqual([]);
      expect(honouring().calls).toHaveLength(0);
    });
  });
}
