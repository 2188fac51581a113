/** Which leaves of a trigger body become searchable, within the limits that keep the write small. */
import { describe, expect, it } from 'vitest';
import { inputValues, MAX_LEAVES, MAX_TEXT, searchedBody } from './input-values.ts';

describe('searchable input values', () => {
  it('keeps scalar leaves by dotted path, lists by position, numbers and yes/no as JSON writes them', () => {
    expect(inputValues({ id: 'evt_1', order: { id: 4417, paid: true, total: 12.5, note: null, tag: '', lines: [{ sku: 'mug' }, 'tea'] } })).toEqual([
      { path: 'id', value: 'evt_1' },
      { path: 'order.id', value: '4417' },
      { path: 'order.paid', value: 'true' },
      { path: 'order.total', value: '12.5' },
      { path: 'order.lines.1', value: 'tea' },
      { path: 'order.lines.0.sku', value: 'mug' },
    ]);
  });

  it('takes the shallowest leaves first and stops at the limits', () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`f${index}`, index]));
    const values = inputValues({ deep: { a: { b: 1 } }, ...wide });
    expect(values).toHaveLength(MAX_LEAVES);
    expect(values.map((value) => value.path)).not.toContain('deep.a.b');
    expect(inputValues({ long: 'x'.repeat(MAX_TEXT + 1), fits: 'x'.repeat(MAX_TEXT) }).map((value) => value.path)).toEqual(['fits']);
    let nested: unknown = 'bottom';
    for (let level = 0; level < 20; level++) nested = { n: nested };
    expect(inputValues(nested)).toEqual([]);
    expect(inputValues(Array.from({ length: 100_000 }, (_, index) => index))).toHaveLength(MAX_LEAVES);
    // A path spelled twice is kept once, so the run's rows never collide.
    expect(inputValues({ 'a.b': 1, a: { b: 2 } })).toEqual([{ path: 'a.b', value: '1' }]);
    expect(inputValues('just text')).toEqual([]);
  });

  it('leaves out values and paths with a NUL character, which PostgreSQL text cannot hold', () => {
    expect(inputValues({ id: 'evt_1', note: 'a\u0000b', ['odd\u0000key']: 'x' })).toEqual([{ path: 'id', value: 'evt_1' }]);
  });

  it("searches a webhook run's body, not its headers", () => {
    const input = { body: { order: { id: 1 } }, headers: { 'x-shop': 'north' }, receivedAt: '2026-12-01T00:00:00Z' };
    expect(searchedBody({ input, triggerKind: 'webhook' })).toEqual({ order: { id: 1 } });
    expect(searchedBody({ input, triggerKind: 'manual' })).toBe(input);
  });
});
