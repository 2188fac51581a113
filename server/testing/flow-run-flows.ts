/**
 * A parent flow for Run flow tests: manual trigger → Run flow (key "{{ trigger.body.order.id }}:child",
 * the trigger's body as the child's input) → a transform, or a side-effect step to `afterUrl`.
 */
export function parentFlow(childFlowId: string, options: { name?: string; afterUrl?: string; label?: string } = {}) {
  const after = options.afterUrl
    ? {
      id: 'after', type: 'http.request', position: { x: 400, y: 0 },
      data: {
        label: 'Tell the ledger', key: '{{ trigger.body.order.id }}:ledger', receiverKeyHeader: 'Idempotency-Key', retry: { max: 0 },
        request: { method: 'POST', url: `${options.afterUrl}/ledger`, body: '{"ref": "{{ trigger.body.order.id }}:ledger", "child": "{{ steps.call.output.result.order }}"}' },
      },
    }
    : { id: 'after', type: 'transform', position: { x: 400, y: 0 }, data: { outputs: { child: '{{ steps.call.output.result.order }}' } } };
  return {
    format: 'onceflow/v1',
    name: options.name ?? 'Parent',
    sampleInput: { order: { id: '4417', total: 120 } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'call', type: 'flow.run', position: { x: 200, y: 0 }, data: { label: options.label ?? 'Bill the order', flowId: childFlowId, input: '{{ trigger.body }}', key: '{{ trigger.body.order.id }}:child' } },
      after,
    ],
    edges: [{ id: 'e1', source: 'start', target: 'call' }, { id: 'e2', source: 'call', target: 'after' }],
  };
}

/** A child flow: manual trigger → a side-effect POST to `receiverUrl` (key "{{ trigger.body.order.id }}:invoice") → a transform. */
export function childFlow(receiverUrl: string, name: string) {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: { order: { id: '4417', total: 120 } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      {
        id: 'invoice', type: 'http.request', position: { x: 200, y: 0 },
        data: {
          label: 'Create invoice', key: '{{ trigger.body.order.id }}:invoice', receiverKeyHeader: 'Idempotency-Key',
          request: { method: 'POST', url: `${receiverUrl}/invoices`, body: '{"ref": "{{ trigger.body.order.id }}:invoice"}' },
        },
      },
      { id: 'after', type: 'transform', position: { x: 400, y: 0 }, data: { outputs: { order: '{{ trigger.body.order.id }}' } } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }, { id: 'e2', source: 'invoice', target: 'after' }],
  };
}
