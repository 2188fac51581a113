/**
 * Try this step renders a step of the draft against a sample and the outputs of the last
 * run started from the editor, without a run: secrets masked, keys and headers shown,
 * missing paths in words. Same assertions on SQLite and PostgreSQL (TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';

const TOKEN = 'tok_live_5f2c9a81d3';

/*
 *   start ──► lookup (transform) ──► invoice (POST, key) ──► big (condition: total > 100)
 */
function flow(receiverUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Try invoices',
    sampleInput: { order: { id: '4417', total: 120 } },
    samples: [
      { name: 'small order', input: { order: { id: '5001', total: 20 } } },
      { name: 'no order', input: {} },
    ],
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'lookup', type: 'transform', position: { x: 200, y: 0 }, data: { label: 'Find customer', outputs: { customer: 'cus_{{ trigger.body.order.id }}' } } },
      {
        id: 'invoice', type: 'http.request', position: { x: 400, y: 0 },
        data: {
          label: 'Create invoice', sideEffect: true, key: '{{ trigger.body.order.id }}:invoice', receiverKeyHeader: 'Idempotency-Key',
          request: {
            method: 'POST', url: `${receiverUrl}/invoices`,
            headers: { authorization: 'Bearer {{ secrets.API_TOKEN }}', 'x-customer': '{{ steps.lookup.output.customer }}' },
            body: '{"order": "{{ trigger.body.order.id }}", "total": {{ trigger.body.order.total }}}',
          },
        },
      },
      { id: 'big', type: 'condition', position: { x: 600, y: 0 }, data: { label: 'Big order?', left: '{{ trigger.body.order.total }}', op: 'gt', right: '100' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'lookup' },
      { id: 'e2', source: 'lookup', target: 'invoice' },
      { id: 'e3', source: 'invoice', target: 'big' },
    ],
  };
}

for (const kind of testDatabases()) {
  describe(`Try this step (${kind.name})`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let receiver: Receiver;
    let flowId: string;
    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      receiver = await startReceiver({ honoursKeys: true });
      await engine.services.secrets.set('API_TOKEN', TOKEN);
      flowId = await engine.publish(flow(receiver.url));
    });
    afterAll(async () => {
      await engine.close();
      await receiver.close();
      await database.drop();
    });
    const tryStep = (nodeId: string, sample?: string, document?: unknown) =>
      engine.services.stepTry.tryStep({ flowId, nodeId, ...(sample === undefined ? {} : { sample }), ...(document === undefined ? {} : { document }) });

    it('before any run, shows the key and says which earlier output it still needs', async () => {
      const tried = await tryStep('invoice');
      expect(tried.sample).toBe('Sample input');
      expect(tried.earlierRun).toBeNull();
      expect(tried.key).toEqual({ key: '4417:invoice', scope: `${flowId}:invoice`, header: 'Idempotency-Key', testKey: 'test:editor:4417:invoice' });
      expect(tried.request).toBeUndefined();
      expect(tried.problems).toEqual([
        'The step: "steps.lookup.output.customer" is what step "Find customer" (lookup) gives, and this flow has not been run from the editor yet. Run it once, then try this step again.',
      ]);
      expect(receiver.calls).toHaveLength(0);
    });

    it('renders the request for a named sample with the outputs of the last editor run, secrets masked', async () => {
      const run = await engine.runAndWait(flowId, { order: { id: '4417', total: 120 } });
      expect(run.status).toBe('succeeded');
      const callsBefore = receiver.calls.length;

      const tried = await tryStep('invoice', 'small order');
      expect(tried.earlierRun).toEqual({ id: run.id, number: run.seq });
      expect(tried.problems).toEqual([]);
      expect(tried.key).toEqual({ key: '5001:invoice', scope: `${flowId}:invoice`, header: 'Idempotency-Key', testKey: 'test:editor:5001:invoice' });
      expect(tried.request).toEqual({
        method: 'POST',
        url: `${receiver.url}/invoices`,
        headers: [
          { name: 'authorization', value: 'Bearer ••••••' },
          { name: 'x-customer', value: 'cus_4417' },
          { name: 'Idempotency-Key', value: '5001:invoice' },
        ],
        body: '{"order": "5001", "total": 20}',
      });
      expect(JSON.stringify(tried)).not.toContain(TOKEN);
      // Nothing was sent and nothing was claimed.
      expect(receiver.calls).toHaveLength(callsBefore);
      const { runs } = await engine.services.runs.list({ flowId });
      expect(runs).toHaveLength(1);
    });

    it('names the missing path of a sample in plain words instead of failing', async () => {
      const tried = await tryStep('invoice', 'no order');
      expect(tried.key).toBeUndefined();
      expect(tried.request).toBeUndefined();
      expect(tried.problems[0]).toBe(
        'The key: the sample "no order" has no field "order.id", so "trigger.body.order.id" cannot be filled in. Add it to the sample, or pick another sample.',
      );
    });

    it("shows a condition's exit and a transform's outputs for the chosen sample", async () => {
      const small = await tryStep('big', 'small order');
      expect(small.decision).toBe('No: 20 is more than 100 is false, so the flow goes on through the "No" exit.');
      expect(small.output).toMatchObject({ result: false, branch: 'false' });
      expect((await tryStep('big')).decision).toMatch(/^Yes: 120 is more than 100 is true/);
      const lookup = await tryStep('lookup', 'small order');
      expect(lookup.output).toEqual({ customer: 'cus_5001' });
      expect(lookup.key).toBeUndefined();
    });

    it('sends the rendered request to its stand-in, which answers from its record when the key repeats', async () => {
      const callsBefore = receiver.calls.length;
      const first = await engine.services.stepTry.sendToStandIn({ flowId, nodeId: 'invoice', sample: 'small order' });
      expect(first.tried.request?.headers).toContainEqual({ name: 'authorization', value: 'Bearer ••••••' });
      expect(first.standIn).toMatchObject({ name: 'payments', repeated: false, keySent: 'test:editor:5001:invoice', answer: { status: 200, standIn: 'payments' } });
      const again = await engine.services.stepTry.sendToStandIn({ flowId, nodeId: 'invoice', sample: 'small order' });
      expect(again.standIn).toMatchObject({ name: 'payments', repeated: true, answer: { replayed: true } });
      expect((again.standIn?.answer as { body: unknown }).body).toEqual((first.standIn?.answer as { body: unknown }).body);
      expect(JSON.stringify([first, again])).not.toContain(TOKEN);
      // The real receiver was never called, and a step that did not render is not sent.
      expect(receiver.calls).toHaveLength(callsBefore);
      expect((await engine.services.stepTry.sendToStandIn({ flowId, nodeId: 'invoice', sample: 'no order' })).standIn).toBeNull();
      expect((await engine.services.stepTry.sendToStandIn({ flowId, nodeId: 'lookup' })).standIn).toBeNull();
    });

    it('tries the document on the canvas when one is given, and lists the samples when a name is unknown', async () => {
      const draft = flow(receiver.url);
      const nodes = draft.nodes.map((node) => (node.id === 'invoice' ? { ...node, data: { ...node.data, key: 'inv-{{ trigger.body.order.id }}' } } : node));
      expect((await tryStep('invoice', undefined, { ...draft, nodes })).key?.key).toBe('inv-4417');
      await expect(tryStep('invoice', 'refund')).rejects.toThrow('This flow has no sample called "refund". Its samples are: "Sample input", "small order", "no order".');
      await expect(tryStep('ghost')).rejects.toThrow('There is no step "ghost" in this flow');
    });
  });
}
