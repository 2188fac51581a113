import { describe, expect, it } from 'vitest';
import { knownOutputs, leafFields, sampleFieldTree, stepsBefore, suggestKeys } from './sample-fields.ts';
import type { StepNode } from './editor-changes.ts';

const sample = { id: 'evt_1', type: 'order.paid', order: { id: '4417', total: 120, customer: { email: 'ada@example.com' } }, items: [{ sku: 'A-1' }] };

describe('sampleFieldTree', () => {
  it('lists fields as a tree with their placeholders and sample values', () => {
    const tree = sampleFieldTree(sample);
    expect(tree.map((entry) => entry.name)).toEqual(['id', 'type', 'order', 'items']);
    const orderId = leafFields(tree).find((entry) => entry.name === 'order.id');
    expect(orderId).toMatchObject({ placeholder: '{{ trigger.body.order.id }}', preview: '"4417"' });
    expect(leafFields(tree).map((entry) => entry.name)).toContain('items.0.sku');
  });

  it('has no fields for a sample that is not a group of fields', () => {
    expect(sampleFieldTree(42)).toEqual([]);
    expect(sampleFieldTree(null)).toEqual([]);
  });
});

describe('suggestKeys', () => {
  it('prefers the id of the thing acted on over the event id, and names the step', () => {
    expect(suggestKeys(sample, 'Create invoice')).toEqual([
      '{{ trigger.body.order.id }}:create-invoice',
      '{{ trigger.body.order.customer.email }}:create-invoice',
      '{{ trigger.body.id }}:create-invoice',
    ]);
  });

  it('suggests nothing when the sample has no identifying field', () => {
    expect(suggestKeys({ total: 3 }, 'x')).toEqual([]);
  });
});

/*
 *   hook ──▶ totals ──▶ invoice
 *   other (not connected)
 */
describe('stepsBefore and knownOutputs', () => {
  const node = (id: string, type: string, data: Record<string, unknown> = {}): StepNode => ({ id, type, position: { x: 0, y: 0 }, data });
  const nodes = [node('hook', 'trigger.webhook'), node('totals', 'transform', { label: 'Totals', outputs: { net: '{{ trigger.body.order.total }}' } }), node('invoice', 'http.request'), node('other', 'transform', { outputs: { x: '1' } })];
  const edges = [{ id: 'a', source: 'hook', target: 'totals' }, { id: 'b', source: 'totals', target: 'invoice' }];

  it('finds the steps that run before one, and the outputs they are known to give', () => {
    const before = stepsBefore(nodes, edges, 'invoice');
    expect(before.map((step) => step.id)).toEqual(['hook', 'totals']);
    expect(knownOutputs(before)).toEqual([{ id: 'totals', label: 'Totals', fields: [{ name: 'net', placeholder: '{{ steps.totals.output.net }}' }] }]);
  });
});
