import { describe, expect, it } from 'vitest';
import { lintKeyTemplate, type KeyLint } from './lint-key.ts';

const codes = (lints: KeyLint[]): string[] => lints.map((lint) => lint.code);

describe('lintKeyTemplate inside a For each body', () => {
  it('accepts a key built from the item, alone or with trigger data', () => {
    expect(lintKeyTemplate('{{ trigger.body.order.id }}:{{ item.sku }}:line', undefined, { inLoop: true })).toEqual([]);
    expect(lintKeyTemplate('welcome-{{ item.email }}', undefined, { inLoop: true })).toEqual([]);
  });

  it('warns that two items would share a key with nothing from the item', () => {
    const lints = lintKeyTemplate('{{ trigger.body.order.id }}:line', undefined, { inLoop: true });
    expect(lints).toEqual([expect.objectContaining({ severity: 'warning', code: 'key_not_item_specific' })]);
    expect(lints[0]?.message).toContain('two items would share one key');
  });

  it("warns that the item's position is not the item, even next to item data", () => {
    for (const template of ['{{ trigger.body.order.id }}:{{ loop.index }}', '{{ item.sku }}-{{ loop.index }}']) {
      const lints = lintKeyTemplate(template, undefined, { inLoop: true });
      expect(codes(lints)).toEqual(['key_uses_loop_index']);
      expect(lints[0]?.message).toContain('two items would share one key');
    }
  });

  it('still refuses a key that is the same for every run and every item', () => {
    expect(codes(lintKeyTemplate('{{ loop.index }}', undefined, { inLoop: true }))).toEqual(['key_constant', 'key_uses_loop_index']);
  });

  it('outside a body, item is not data and nothing is said about items', () => {
    expect(codes(lintKeyTemplate('{{ trigger.body.order.id }}:line'))).toEqual([]);
    expect(codes(lintKeyTemplate('{{ item.sku }}'))).toEqual(['key_constant']);
  });
});
