/**
 * A snake of `steps` steps, 20 to a row, each leading to the next (a webhook trigger
 * first): too wide to read when fitted to a screen. Step `sN` is the N-th. The 300-step
 * benchmark opens it, and so does the large-flow spec with 120.
 */
export function largeFlowDocument(steps: number) {
  const columns = 20;
  const kinds = ['http.request', 'transform', 'message.post', 'delay'] as const;
  const nodes = Array.from({ length: steps }, (_, i) => {
    const row = Math.floor(i / columns);
    const column = row % 2 === 0 ? i % columns : columns - 1 - (i % columns);
    const position = { x: column * 320, y: row * 160 };
    const id = `s${i}`;
    if (i === 0) return { id, type: 'trigger.webhook', position, data: { label: 'Order event', eventId: '{{ trigger.body.id }}' } as Record<string, unknown> };
    const kind = kinds[i % kinds.length] as (typeof kinds)[number];
    const key = `{{ trigger.body.order.id }}:step-${i}`;
    const data = {
      'http.request': { label: `Call service ${i}`, key, request: { method: 'POST', url: 'http://127.0.0.1:9/x' } },
      transform: { label: `Pick values ${i}`, outputs: { total: '{{ trigger.body.order.total }}' } },
      'message.post': { label: `Tell the team ${i}`, key, url: 'http://127.0.0.1:9/chat', text: 'Order {{ trigger.body.order.id }}' },
      delay: { label: `Wait ${i}`, for: '1h' },
    }[kind] as Record<string, unknown>;
    return { id, type: kind as string, position, data };
  });
  const edges = nodes.slice(1).map((node, i) => ({ id: `e${i}`, source: `s${i}`, target: node.id }));
  return { format: 'onceflow/v1', name: `Large flow (${steps} steps)`, sampleInput: { id: 'evt_1', order: { id: '4417', total: 120 } }, nodes, edges };
}
