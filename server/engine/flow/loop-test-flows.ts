/** A small flow with a For each step, for the document and validation tests. */
export function exportableFlow() {
  const nodes: Array<{ id: string; type: string; parentId?: string; position: { x: number; y: number }; data: Record<string, unknown> }> = [
    { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
    { id: 'loop', type: 'for.each', position: { x: 200, y: 0 }, data: { label: 'Each lead', items: '{{ trigger.body.leads }}', concurrency: 5 } },
    {
      id: 'welcome', type: 'http.request', parentId: 'loop', position: { x: 20, y: 40 },
      data: { label: 'Welcome', key: 'welcome-{{ item.email }}', request: { method: 'POST', url: 'http://127.0.0.1:9/welcome', body: '{"to": "{{ item.email }}", "n": {{ loop.index }}}' } },
    },
    { id: 'follow', type: 'transform', parentId: 'loop', position: { x: 200, y: 40 }, data: { outputs: { sent: '{{ steps.welcome.output.status }}' } } },
    { id: 'after', type: 'transform', position: { x: 600, y: 0 }, data: { outputs: { count: '{{ steps.loop.output }}' } } },
  ];
  return {
    format: 'onceflow/v1',
    name: 'Welcome leads',
    sampleInput: { batch: 'b1', leads: [{ email: 'a@example.test' }] },
    nodes,
    edges: [
      { id: 'e1', source: 'start', target: 'loop' },
      { id: 'b1', source: 'welcome', target: 'follow' },
      { id: 'e2', source: 'loop', target: 'after' },
    ],
  };
}
