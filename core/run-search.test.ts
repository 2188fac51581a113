/** The search box's words, read the same in the browser and on the server. */
import { expect, it } from 'vitest';
import { describeRunSearch, parseRunSearch } from './run-search.ts';

it('reads keys, input values, failed steps and run references', () => {
  expect(parseRunSearch('key 4417:invoice')).toEqual({ kind: 'key', key: '4417:invoice' });
  expect(parseRunSearch('  Key "a b:c" ')).toEqual({ kind: 'key', key: 'a b:c' });
  expect(parseRunSearch('order.id = 4417')).toEqual({ kind: 'input', path: 'order.id', value: '4417' });
  expect(parseRunSearch('order.id=4417')).toEqual({ kind: 'input', path: 'order.id', value: '4417' });
  expect(parseRunSearch("{{ trigger.body.order.lines[0].sku }} = 'mug'")).toEqual({ kind: 'input', path: 'order.lines.0.sku', value: 'mug' });
  expect(parseRunSearch("trigger.body.order.lines[0].sku = 'mug'")).toEqual({ kind: 'input', path: 'order.lines.0.sku', value: 'mug' });
  expect(parseRunSearch('customer.name = Ada Lovelace')).toEqual({ kind: 'input', path: 'customer.name', value: 'Ada Lovelace' });
  expect(parseRunSearch('failed at Create invoice')).toEqual({ kind: 'failed-step', step: 'Create invoice' });
  expect(parseRunSearch('#12')).toEqual({ kind: 'run', text: '#12' });
  expect(parseRunSearch('order.id =')).toEqual({ kind: 'run', text: 'order.id =' });
  expect(describeRunSearch(parseRunSearch('order.id = 4417'))).toBe('Runs whose input has order.id = 4417');
});
