/**
 * The run page's view of a long For each, from records made in memory: the answer carries
 * the head of the loop's list with its full length, and a page of items names only the
 * records it needs.
 */
import { describe, expect, it } from 'vitest';
import type { FlowDocument } from './flow/document.ts';
import { LOOP_OUTPUT_HEAD, loopItemPage, loopPageStepIds, stepViewsWithLoops } from './loop-views.ts';
import { indexRecords } from './run-views.ts';
import type { CheckpointRow } from './types.ts';

const document: FlowDocument = {
  format: 'onceflow/v1',
  name: 'Lines',
  nodes: [
    { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
    { id: 'loop', type: 'for.each', position: { x: 0, y: 0 }, data: { items: '{{ trigger.body.items }}' } },
    { id: 'send', type: 'transform', parentId: 'loop', position: { x: 0, y: 0 }, data: { outputs: { sku: '{{ item.sku }}' } } },
  ],
  edges: [{ id: 'e1', source: 'start', target: 'loop' }],
};

const checkpoint = (nodeId: string, output: unknown): CheckpointRow => ({ runId: 'r1', nodeId, status: 'succeeded', output, keyScope: null, key: null, attempt: 1, createdAt: 1 });

describe('a long loop on the run page', () => {
  const items = 1_000;
  const outputs = Array.from({ length: items }, (_, index) => ({ sku: `S-${index + 1}` }));
  const records = indexRecords('r1', [checkpoint('start', null), checkpoint('loop', outputs), ...outputs.map((output, index) => checkpoint(`send@${index + 1}`, output))], [], []);

  it('carries the head of the list and its length, with every item counted', () => {
    const loop = stepViewsWithLoops(document, records).find((step) => step.nodeId === 'loop')!;
    expect(loop.output).toHaveLength(LOOP_OUTPUT_HEAD);
    expect((loop.output as unknown[])[0]).toEqual({ sku: 'S-1' });
    expect(loop.outputTotal).toBe(items);
    expect(loop.loop).toMatchObject({ items, done: items, failed: 0 });
  });

  it('leaves a short list whole', () => {
    const short = indexRecords('r1', [checkpoint('loop', outputs.slice(0, 3)), ...[1, 2, 3].map((item) => checkpoint(`send@${item}`, outputs[item - 1]))], [], []);
    const loop = stepViewsWithLoops(document, short).find((step) => step.nodeId === 'loop')!;
    expect(loop.output).toHaveLength(3);
    expect(loop).not.toHaveProperty('outputTotal');
  });

  it('reads a page of items from the loop and that page’s item steps alone', () => {
    const ids = loopPageStepIds(document, 'loop', 40, 20);
    expect(ids).toEqual(['loop', ...Array.from({ length: 20 }, (_, index) => `send@${41 + index}`)]);
    const wanted = new Set(ids);
    const pageRecords = indexRecords('r1', [...records.byNode.values()].filter((row) => wanted.has(row.nodeId)), [], []);
    const page = loopItemPage(document, 'loop', pageRecords, 40, 20);
    expect(page.total).toBe(items);
    expect(page.items.map((item) => item.item)).toEqual(Array.from({ length: 20 }, (_, index) => 41 + index));
    expect(page.items.every((item) => item.status === 'succeeded')).toBe(true);
  });
});
