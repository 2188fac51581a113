/** Flow documents used by the webhook tests and benchmarks. */

/** A webhook and one plain step that copies the order id: intake's benchmark flow, no side effect. */
export function webhookNoteFlow(name = 'Webhook → note') {
  return {
    format: 'onceflow/v1', name, sampleInput: { id: 'evt_1' },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'note', type: 'transform', position: { x: 200, y: 0 }, data: { outputs: { order: '{{ trigger.body.order.id }}' } } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'note' }],
  };
}
export function webhookEffectFlow(receiverUrl: string, extra: Record<string, unknown> = {}) {
  return {
    format: 'onceflow/v1',
    name: 'Webhook → effect',
    sampleInput: { id: 'evt_1' },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}', ...extra } },
      { id: 'effect', type: 'http.request', position: { x: 200, y: 0 }, data: {
        sideEffect: true, key: '{{ trigger.body.id }}:effect', receiverKeyHeader: 'Idempotency-Key',
        request: { method: 'POST', url: `${receiverUrl}/effects`, body: '{"ref": "{{ trigger.body.id }}"}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'effect' }],
  };
}

/** invoice.created / paid / refunded in any order, guarded by a state transition. */
export function paymentEventsFlow(receiverUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Payment events in any order',
    sampleInput: { id: 'evt_1', type: 'invoice.paid', data: { id: 'in_1', status: 'paid' } },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'state', type: 'state.transition', position: { x: 200, y: 0 }, data: {
        entity: 'invoice:{{ trigger.body.data.id }}', states: ['created', 'paid', 'refunded'], to: '{{ trigger.body.data.status }}', onStale: 'stop',
      } },
      { id: 'notify', type: 'http.request', position: { x: 400, y: 0 }, data: {
        sideEffect: true, key: '{{ trigger.body.data.id }}:{{ trigger.body.data.status }}:notify', receiverKeyHeader: 'Idempotency-Key',
        request: { method: 'POST', url: `${receiverUrl}/notify`, body: '{"ref": "{{ trigger.body.data.id }}:{{ trigger.body.data.status }}"}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'state' }, { id: 'e2', source: 'state', target: 'notify' }],
  };
}
