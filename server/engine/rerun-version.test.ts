/**
 * Rerun and replay on the fixed version. A run fails on v1 (the receiver refuses the
 * shipping step); v2 fixes that step; the rerun on v2 matches steps by id: the invoice
 * done under an unchanged key stops as a duplicate, plain steps run again, the served
 * delay is not served again, a step new in v2 runs, a removed step does not. A key that
 * changed between versions makes its step act once more, and the preview warns first.
 *
 *   v1: start ─▶ invoice ─▶ pause (delay) ─▶ note (transform) ─▶ ship (refused) ─▶ old (transform)
 *   v2: start ─▶ invoice ─▶ pause (delay) ─▶ note (transform) ─▶ ship (fixed)   ─▶ thanks (new)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useEngine, useReceiver } from '../testing/suite-fixtures.ts';
import { loadCheckpoints } from '../store/timeline.ts';

function effect(id: string, label: string, url: string, key = `{{ trigger.body.order }}:${id}`) {
  return {
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: { label, sideEffect: true, key, onUncertain: 'review', timeoutMs: 2000, retry: { max: 0 }, request: { method: 'POST', url, body: `{"ref": "{{ trigger.body.order }}:${id}"}` } },
  };
}

function flowV1(url: string) {
  return {
    format: 'onceflow/v1',
    name: 'Ship orders',
    sampleInput: { order: 'O-1' },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      effect('invoice', 'Create invoice', `${url}/invoice`),
      { id: 'pause', type: 'delay', position: { x: 0, y: 0 }, data: { label: 'Wait a moment', for: '1s' } },
      { id: 'note', type: 'transform', position: { x: 0, y: 0 }, data: { label: 'Note it', outputs: { written: 'v1' } } },
      effect('ship', 'Ship it', `${url}/broken`),
      { id: 'old', type: 'transform', position: { x: 0, y: 0 }, data: { label: 'Old step', outputs: { done: 'yes' } } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'invoice' },
      { id: 'e2', source: 'invoice', target: 'pause' },
      { id: 'e3', source: 'pause', target: 'note' },
      { id: 'e4', source: 'note', target: 'ship' },
      { id: 'e5', source: 'ship', target: 'old' },
    ],
  };
}

/** The fix: ship goes to the right address, "old" is replaced by "thanks"; optionally the invoice key changes. */
function flowV2(url: string, invoiceKey?: string) {
  const v1 = flowV1(url);
  return {
    ...v1,
    nodes: [
      ...v1.nodes.filter((node) => !['invoice', 'note', 'ship', 'old'].includes(node.id)),
      effect('invoice', 'Create invoice', `${url}/invoice`, invoiceKey),
      { id: 'note', type: 'transform', position: { x: 0, y: 0 }, data: { label: 'Note it', outputs: { written: 'v2' } } },
      effect('ship', 'Ship it', `${url}/ship`),
      effect('thanks', 'Say thanks', `${url}/thanks`),
    ],
    edges: [...v1.edges.filter((edge) => edge.id !== 'e5'), { id: 'e6', source: 'ship', target: 'thanks' }],
  };
}

for (const kind of testDatabases()) {
  describe(`rerun on the fixed version, on ${kind.name}`, () => {
    const receiver = useReceiver({ honoursKeys: false });
    const engine = useEngine(kind);

    beforeAll(() => {
      receiver().behave = (call) => (call.path === '/broken' ? { kind: 'status', status: 422 } : { kind: 'ok' });
    });

    /** A flow whose run failed on v1 at "ship", and v2 published with the fix. */
    async function failedOnV1(order: string, invoiceKey?: string) {
      const flowId = await engine().publish(flowV1(receiver().url));
      const run = await engine().runAndWait(flowId, { order });
      expect(run.status).toBe('failed');
      await engine().services.flows.saveDraft(flowId, flowV2(receiver().url, invoiceKey));
      // A changed key is published only once confirmed (publish-guard.ts).
      expect((await engine().services.flows.publish(flowId, 'admin', { confirmKeyChanges: invoiceKey !== undefined })).version).toBe(2);
      return { flowId, run };
    }
    const calls = (path: string, order: string) => receiver().calls.filter((call) => call.path === path && (call.body as { ref?: string }).ref?.startsWith(order)).length;

    it('previews and reruns on the latest version: duplicate, runs again, first time, removed, delay not served again', async () => {
      const { run } = await failedOnV1('A-1');
      const preview = await engine().services.runs.rerunPreview(run.id);
      expect(preview.version).toEqual({ ran: 1, uses: 2, latest: 2, newerExists: true });
      const step = (id: string) => preview.steps.find((candidate) => candidate.nodeId === id)!;
      expect(step('invoice')).toMatchObject({ action: 'deduplicate' });
      expect(step('invoice').reason).toBe(`Duplicate stopped: key A-1:invoice was already done by this run (#${run.seq}); its result is reused and nothing is sent again.`);
      expect(step('pause')).toMatchObject({ action: 'skip' });
      expect(step('note')).toMatchObject({ action: 'act', reason: 'Runs again in v2: it changes nothing outside Onceflow, so repeating it is harmless.' });
      expect(step('ship')).toMatchObject({ action: 'act', ranBefore: true });
      expect(step('thanks')).toMatchObject({ action: 'act', newInVersion: true, reason: 'Runs for the first time: new in v2; nothing was done yet with key A-1:thanks.' });
      expect(preview.removed).toEqual([{ nodeId: 'old', label: 'Old step', reason: 'Will not run: removed in v2.' }]);
      expect(preview.warnings).toBe(0);

      expect(await engine().services.runs.rerun(run.id)).toMatchObject({ version: 2, fromVersion: 1 });
      const done = await engine().waitForRun(run.id);
      expect(done.status).toBe('succeeded');
      expect(calls('/invoice', 'A-1')).toBe(1);
      expect(calls('/ship', 'A-1')).toBe(1);
      expect(calls('/thanks', 'A-1')).toBe(1);

      const { run: view, timeline } = await engine().services.runs.get(run.id);
      expect(view.version).toBe(2);
      const attempt2 = timeline.filter((event) => event.attempt === 2);
      expect(timeline.find((event) => event.type === 'run.rerun')?.data).toMatchObject({ version: 2, fromVersion: 1 });
      expect(attempt2.filter((event) => event.type === 'step.duplicate').map((event) => event.nodeId)).toEqual(['invoice']);
      // The delay was served in attempt 1 and is skipped, not waited again.
      expect(attempt2.some((event) => event.type === 'step.waiting')).toBe(false);
      expect(attempt2.find((event) => event.nodeId === 'pause')?.type).toBe('step.skipped');
      expect(attempt2.some((event) => event.nodeId === 'old')).toBe(false);
      const note = (await loadCheckpoints(engine().services.db, run.id)).find((row) => row.nodeId === 'note');
      expect(note?.output).toMatchObject({ written: 'v2' });
    });

    it('reruns on the version it ran when asked, and fails the same way', async () => {
      const { run } = await failedOnV1('B-1');
      const preview = await engine().services.runs.rerunPreview(run.id, 'original');
      expect(preview.version).toMatchObject({ ran: 1, uses: 1, newerExists: true });
      expect(preview.steps.find((step) => step.nodeId === 'invoice')).toMatchObject({ action: 'skip' });
      expect(preview.removed).toEqual([]);
      await engine().services.runs.rerun(run.id, 'admin', 'original');
      expect((await engine().waitForRun(run.id)).status).toBe('failed');
      expect(calls('/broken', 'B-1')).toBe(2);
      expect(calls('/invoice', 'B-1')).toBe(1);
      expect((await engine().services.runs.view(run.id)).run.version).toBe(1);
      const rerun = (await engine().services.runs.get(run.id)).timeline.find((event) => event.type === 'run.rerun');
      expect(rerun?.data).toMatchObject({ version: 1, latestVersion: 2 });
    });

    it('warns about a key that changed between versions, and the step acts once more', async () => {
      const { run } = await failedOnV1('C-1', '{{ trigger.body.order }}:inv');
      const preview = await engine().services.runs.rerunPreview(run.id);
      const invoice = preview.steps.find((step) => step.nodeId === 'invoice')!;
      expect(invoice).toMatchObject({ action: 'act', keyChange: { from: 'C-1:invoice', to: 'C-1:inv' } });
      expect(invoice.reason).toBe('Acts again: its key changed from C-1:invoice to C-1:inv, so the work is done once more under the new key.');
      expect(preview.warnings).toBe(1);

      await engine().services.runs.rerun(run.id);
      expect((await engine().waitForRun(run.id)).status).toBe('succeeded');
      expect(calls('/invoice', 'C-1')).toBe(2);
      const { timeline } = await engine().services.runs.get(run.id);
      expect(timeline.find((event) => event.type === 'run.rerun')?.data).toMatchObject({
        keyChanges: [{ nodeId: 'invoice', label: 'Create invoice', from: 'C-1:invoice', to: 'C-1:inv' }],
      });
      expect(timeline.filter((event) => event.attempt === 2 && event.type === 'step.succeeded').map((event) => event.nodeId)).toContain('invoice');
    });

    it('replays on the latest version by default and on the original when asked', async () => {
      const { run } = await failedOnV1('D-1');
      const latest = await engine().services.runs.replay(run.id);
      expect(latest).toMatchObject({ version: 2, fromVersion: 1 });
      expect((await engine().waitForRun(latest.runId)).status).toBe('succeeded');
      expect((await engine().services.runs.view(latest.runId)).run.version).toBe(2);
      // The invoice of the first run is a duplicate for the replay: sent once in all.
      expect(calls('/invoice', 'D-1')).toBe(1);

      // Replay with changes: the preview names the keys an edited input renders and whether each was done.
      const same = await engine().services.runs.replayPreview(run.id, undefined, { body: { order: 'D-1' } });
      expect(same.steps.find((step) => step.nodeId === 'invoice')).toMatchObject({ action: 'deduplicate' });
      expect(same.steps.find((step) => step.nodeId === 'invoice')!.reason).toMatch(/^Duplicate stopped: key D-1:invoice was already done by run #\d+;/);
      const changed = await engine().services.runs.replayPreview(run.id, undefined, { body: { order: 'D-9' } });
      expect(changed.steps.find((step) => step.nodeId === 'invoice')).toMatchObject({ action: 'act', ranBefore: false });
      expect(changed.steps.find((step) => step.nodeId === 'invoice')!.reason).toContain('key D-9:invoice');
      const edited = await engine().services.runs.replay(run.id, 'admin', undefined, { body: { order: 'D-9' } });
      expect((await engine().waitForRun(edited.runId)).status).toBe('succeeded');
      expect(calls('/invoice', 'D-9')).toBe(1);

      const original = await engine().services.runs.replay(run.id, 'admin', 'original');
      expect(original).toMatchObject({ version: 1 });
      expect((await engine().waitForRun(original.runId)).status).toBe('failed');
    });

    it('reruns every failed run of a flow on the latest version at once', async () => {
      const { flowId, run } = await failedOnV1('E-1');
      const before = await engine().services.runs.bulkPreview({ flowId, status: 'failed' });
      expect(before).toMatchObject({ runs: 1, onOlderVersion: 1, warnings: 0 });
      expect(await engine().services.runs.bulkRerun({ flowId, status: 'failed' })).toEqual({ rerun: 1 });
      expect((await engine().waitForRun(run.id)).status).toBe('succeeded');
      expect(calls('/invoice', 'E-1')).toBe(1);
      expect((await engine().services.runs.view(run.id)).run.version).toBe(2);
    });
  });
}
