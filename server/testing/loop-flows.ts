/**
 * A flow with a For each step, for tests and benchmarks:
 *
 *   start (manual) ──► loop (for.each over trigger.body.items) ──► after (transform)
 *                       └ send (http.request, key "{{ trigger.body.batch }}:{{ item.sku }}")
 */
export interface LoopFlowOptions {
  name?: string;
  concurrency?: number;
  onItemError?: 'stop' | 'continue';
  maxItems?: number;
  /** Pass the key in an Idempotency-Key header (default: yes). */
  keyHeader?: boolean;
  retryMax?: number;
}

export function loopFlow(receiverUrl: string, options: LoopFlowOptions = {}) {
  return {
    format: 'onceflow/v1',
    name: options.name ?? 'Each line item',
    sampleInput: { batch: 'B1', items: [{ sku: 'A-1' }] },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      {
        id: 'loop', type: 'for.each', position: { x: 320, y: 0 },
        data: {
          label: 'Each item', items: '{{ trigger.body.items }}',
          ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
          ...(options.onItemError === undefined ? {} : { onItemError: options.onItemError }),
          ...(options.maxItems === undefined ? {} : { maxItems: options.maxItems }),
        },
      },
      {
        id: 'send', type: 'http.request', parentId: 'loop', position: { x: 24, y: 130 },
        data: {
          label: 'Send line', sideEffect: true, key: '{{ trigger.body.batch }}:{{ item.sku }}',
          ...(options.keyHeader === false ? {} : { receiverKeyHeader: 'Idempotency-Key' }),
          timeoutMs: 2000, retry: { max: options.retryMax ?? 1, backoff: 'fixed', delayMs: 20 },
          request: {
            method: 'POST', url: `${receiverUrl}/lines`, headers: { 'content-type': 'application/json' },
            body: '{"ref": "{{ trigger.body.batch }}:{{ item.sku }}", "position": {{ loop.index }}}',
          },
        },
      },
      // Right of the loop's box, which holds its body (about 600 px wide).
      { id: 'after', type: 'transform', position: { x: 1000, y: 0 }, data: { outputs: { first: '{{ steps.loop.output.0.body.ref }}' } } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'loop' },
      { id: 'e2', source: 'loop', target: 'after' },
    ],
  };
}

/** `{ batch, items: [{ sku: '<batch>-1' }, …] }` with `count` items. */
export function loopInput(batch: string, count: number) {
  return { batch, items: Array.from({ length: count }, (_, index) => ({ sku: `${batch}-${index + 1}` })) };
}
