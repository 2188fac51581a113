import { describe, expect, it } from 'vitest';
import { validateFlow, type FlowProblem } from './validate.ts';

/** The example of DESIGN.md §3, verbatim. */
const designExample = {
  format: 'onceflow/v1',
  name: 'Order paid → invoice → email',
  sampleInput: { id: 'evt_1', order: { id: '4417', total: 120 } },
  nodes: [
    {
      id: 'hook',
      type: 'trigger.webhook',
      position: { x: 0, y: 0 },
      data: { label: 'Shop webhook', eventId: '{{ trigger.body.id }}' },
    },
    {
      id: 'invoice',
      type: 'http.request',
      position: { x: 260, y: 0 },
      data: {
        label: 'Create invoice',
        sideEffect: true,
        key: '{{ trigger.body.order.id }}:invoice',
        receiverKeyHeader: 'Idempotency-Key',
        onUncertain: 'review',
        request: {
          method: 'POST',
          url: 'http://127.0.0.1:4010/invoices',
          headers: { 'content-type': 'application/json' },
          body: '{"order": "{{ trigger.body.order.id }}"}',
        },
      },
    },
  ],
  edges: [{ id: 'e1', source: 'hook', target: 'invoice' }],
};

function clone<T>(value: T): T {
  return structuredClone(value);
}

function find(problems: FlowProblem[], code: string, nodeId?: string): FlowProblem {
  const found = problems.find((problem) => problem.code === code && (nodeId === undefined || problem.nodeId === nodeId));
  if (!found) throw new Error(`no ${code} problem${nodeId ? ` for ${nodeId}` : ''} in ${JSON.stringify(problems, null, 1)}`);
  return found;
}

describe('validateFlow on a good flow', () => {
  it('accepts the example of the design and returns the parsed flow', () => {
    const result = validateFlow(designExample);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.flow?.nodes.map((node) => node.id)).toEqual(['hook', 'invoice']);
  });

  it('allows warnings', () => {
    const doc = clone(designExample);
    doc.nodes[1]!.data.key = '{{ trigger.body.order.id }}-{{ run.id }}';
    const result = validateFlow(doc);
    expect(result.ok).toBe(true);
    expect(result.flow).toBeDefined();
    expect(result.problems).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'key_uses_run_id', nodeId: 'invoice', field: 'key' }),
    ]);
  });

  it('accepts a read-only request without a key', () => {
    const doc = clone(designExample);
    const data = doc.nodes[1]!.data as Record<string, unknown>;
    delete data.key;
    delete data.sideEffect;
    (data.request as { method: string }).method = 'GET';
    expect(validateFlow(doc).ok).toBe(true);
  });

  it('accepts both exits of a condition', () => {
    const doc = {
      format: 'onceflow/v1',
      name: 'Branches',
      nodes: [
        { id: 'start', type: 'trigger.manual' },
        { id: 'big', type: 'condition', data: { left: '{{ trigger.body.total }}', op: 'gt', right: 100 } },
        { id: 'yes', type: 'transform', data: { outputs: { v: '{{ steps.big.output }}' } } },
        { id: 'no', type: 'delay', data: { for: '1h' } },
      ],
      edges: [
        { id: 'a', source: 'start', target: 'big' },
        { id: 'b', source: 'big', target: 'yes', sourceHandle: 'true' },
        { id: 'c', source: 'big', target: 'no', sourceHandle: 'false' },
      ],
    };
    expect(validateFlow(doc)).toMatchObject({ ok: true, problems: [] });
  });
});

describe('validateFlow on malformed documents', () => {
  it('refuses something that is not a document', () => {
    for (const input of [null, 'flow', 42, []]) {
      expect(validateFlow(input)).toMatchObject({ ok: false, problems: [{ code: 'not_a_flow' }] });
    }
  });

  it('reports a missing or wrong format', () => {
    const { format: _format, ...noFormat } = designExample;
    expect(find(validateFlow(noFormat).problems, 'format_missing').field).toBe('format');
    const wrong = find(validateFlow({ ...designExample, format: 'n8n' }).problems, 'format_unsupported');
    expect(wrong.message).toContain('"n8n"');
  });

  it('translates shape problems into sentences and keeps checking the rest', () => {
    const doc = clone(designExample) as Record<string, unknown> & { nodes: Array<Record<string, unknown>> };
    doc.name = '';
    doc.nodes[1]!.position = { x: 'left', y: 0 };
    doc.nodes.push({ id: 'bad id', type: 'delay', data: { for: '1h' } });
    doc.nodes.push({ id: 'late', type: 'delay', data: { for: '1h' } });
    const { ok, problems } = validateFlow(doc);
    expect(ok).toBe(false);
    expect(problems).toContainEqual(expect.objectContaining({ code: 'document_shape', field: 'name', message: 'The flow needs a name.' }));
    expect(problems).toContainEqual(
      expect.objectContaining({
        code: 'document_shape',
        nodeId: 'invoice',
        message: 'Step "Create invoice" (invoice) has a position on the canvas that is not two numbers (x and y).',
      }),
    );
    expect(find(problems, 'document_shape', 'bad id').message).toBe(
      'Step number 3 has the id "bad id", but an id may only use letters, digits, "-" and "_".',
    );
    // Checks beyond the shape still ran on what could be read.
    expect(find(problems, 'unreachable', 'late').severity).toBe('warning');
  });

  it('says when there is no trigger', () => {
    const doc = { format: 'onceflow/v1', name: 'x', nodes: [{ id: 'a', type: 'delay', data: { for: '1h' } }], edges: [] };
    expect(validateFlow(doc)).toMatchObject({ ok: false, problems: [{ code: 'no_trigger', severity: 'error' }] });
  });

  it('renders keys against the sample input to find keys that are too long', () => {
    const doc = clone(designExample);
    doc.sampleInput.order.id = 'x'.repeat(300);
    const problem = find(validateFlow(doc).problems, 'key_too_long', 'invoice');
    expect(problem).toMatchObject({ severity: 'error', field: 'key' });
  });

  it('warns when a template reads a step that does not come before', () => {
    const doc = clone(designExample);
    doc.nodes[0]!.data.eventId = '{{ trigger.body.id }}-{{ steps.invoice.output.id }}';
    const problem = find(validateFlow(doc).problems, 'template_step_not_before', 'hook');
    expect(problem).toMatchObject({ severity: 'warning', field: 'eventId' });
  });
});
