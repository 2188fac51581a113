import { describe, expect, it } from 'vitest';
import type { RenderContext } from '../../../core/templates/render.ts';
import { lintKeyTemplate } from './lint-key.ts';
import { SAMPLE_INPUT, missingKeyFields, weakIdentity, weakKind } from './weak-keys.ts';

function context(body: unknown, steps: RenderContext['steps'] = {}): RenderContext {
  return { trigger: { body, headers: {} }, steps };
}

const order = context({ id: 'evt_1', order: { id: '4417', total: 120 } });

describe('a key field the samples do not have', () => {
  it('is a problem naming the field, for the single sample input', () => {
    const lints = missingKeyFields('{{ trigger.body.customer.id }}:invoice', [{ name: SAMPLE_INPUT, context: order }]);
    expect(lints).toEqual([expect.objectContaining({ severity: 'error', code: 'key_field_missing' })]);
    expect(lints[0]?.message).toContain('uses {{ trigger.body.customer.id }}, which the sample input does not have');
    expect(lints[0]?.message).toContain('confirm it will be there in real events');
  });

  it('names each sample that lacks a field, and every field once', () => {
    const refund = context({ refund: { id: 'r1' } });
    const lints = missingKeyFields('{{ trigger.body.order.id }}-{{ trigger.body.refund.id }}', [
      { name: 'order 4417', context: order },
      { name: 'refund', context: refund },
    ]);
    expect(lints).toHaveLength(1);
    expect(lints[0]?.message).toContain('uses {{ trigger.body.order.id }} and {{ trigger.body.refund.id }}');
    expect(lints[0]?.message).toContain('the samples "refund" and "order 4417" do not have');
  });

  it('says nothing when every sample has the fields', () => {
    expect(missingKeyFields('{{ trigger.body.order.id }}', [{ name: SAMPLE_INPUT, context: order }])).toEqual([]);
  });

  it('checks a step output only when that output is known', () => {
    const known = context({}, { lookup: { output: { customer: 'c1' } } });
    expect(missingKeyFields('{{ steps.lookup.output.id }}', [{ name: SAMPLE_INPUT, context: order }])).toEqual([]);
    expect(missingKeyFields('{{ steps.lookup.output.customer }}', [{ name: SAMPLE_INPUT, context: known }])).toEqual([]);
    expect(missingKeyFields('{{ steps.lookup.output.id }}', [{ name: SAMPLE_INPUT, context: known }])).toEqual([
      expect.objectContaining({ code: 'key_field_missing' }),
    ]);
  });

  it('leaves out what only a real delivery brings: headers, the event id', () => {
    expect(missingKeyFields('{{ trigger.headers.webhook-id }}-{{ trigger.eventId }}', [{ name: SAMPLE_INPUT, context: order }])).toEqual([]);
  });

  it('is part of the key lint when samples are given, and goes away once confirmed', () => {
    const samples = [{ name: SAMPLE_INPUT, context: order }];
    expect(lintKeyTemplate('{{ trigger.body.customer.id }}', order, { samples }).map((lint) => lint.code)).toEqual(['key_field_missing']);
    expect(lintKeyTemplate('{{ trigger.body.customer.id }}', order, { samples, confirmed: true })).toEqual([]);
  });
});

describe('a key made only of amounts, dates or counts', () => {
  it.each([
    ['{{ trigger.body.order.total }}', 'An amount is not an identity: two orders can have the same total'],
    ['{{ trigger.body.amount }}-{{ trigger.body.price }}', 'An amount is not an identity: two events can have the same amount'],
    ['{{ trigger.body.order.created_at }}', 'A date or a time is not an identity: two orders can have the same created_at'],
    ['{{ trigger.body.payment.createdAt }}', 'A date or a time is not an identity: two payments can have the same createdAt'],
    ['{{ trigger.body.date }}', 'A date or a time is not an identity'],
    ['{{ steps.cart.output.item_count }}', 'A count is not an identity: two events can have the same item_count'],
    ['q-{{ trigger.body.line.qty }}', 'A count is not an identity: two lines can have the same qty'],
  ])('warns about %s', (template, words) => {
    const lints = weakIdentity(template);
    expect(lints).toEqual([expect.objectContaining({ severity: 'warning', code: 'key_not_identity' })]);
    expect(lints[0]?.message).toContain(words);
    expect(lints[0]?.message).toContain('the second would be stopped as a duplicate');
  });

  it.each([
    '{{ trigger.body.order.id }}',
    '{{ trigger.body.order.id }}-{{ trigger.body.order.total }}',
    '{{ trigger.body.order.number }}',
    '{{ trigger.body.customer.email }}-{{ trigger.body.date }}',
    '{{ trigger.body.status }}',
  ])('does not warn when the key has an identifying field: %s', (template) => {
    expect(weakIdentity(template)).toEqual([]);
  });

  it('reads the kind from the last word of the last segment', () => {
    expect(weakKind(['trigger', 'body', 'grand_total'])).toBe('amount');
    expect(weakKind(['trigger', 'body', 'updatedAt'])).toBe('date');
    expect(weakKind(['trigger', 'body', 'timestamp'])).toBe('date');
    expect(weakKind(['trigger', 'body', 'quantity'])).toBe('count');
    expect(weakKind(['trigger', 'body', 'total_id'])).toBeNull();
    expect(weakKind(['trigger', 'body', 'category'])).toBeNull();
  });

  it('is part of the key lint as a warning, beside the other rules', () => {
    expect(lintKeyTemplate('{{ trigger.body.order.total }}').map((lint) => [lint.code, lint.severity])).toEqual([['key_not_identity', 'warning']]);
    expect(lintKeyTemplate('{{ trigger.body.total }}-{{ run.id }}').map((lint) => lint.code)).toEqual(['key_uses_run_id', 'key_not_identity']);
  });
});
