import { describe, expect, it } from 'vitest';
import { NonRetriableError } from '../errors.ts';
import { MAX_KEY_LENGTH, checkRenderedKey, lintKeyTemplate, type KeyLint } from './lint-key.ts';
import type { RenderContext } from '../../../core/templates/render.ts';

const sample: RenderContext = {
  trigger: { body: { id: 'evt_1', order: { id: '4417' }, blank: '', long: 'x'.repeat(300), multi: 'a\nb' }, headers: {} },
  steps: {},
  run: { id: 'run_1', attempt: 1 },
  now: '2024-01-01T00:00:00.000Z',
};

const codes = (lints: KeyLint[]): string[] => lints.map((lint) => lint.code);

describe('lintKeyTemplate', () => {
  it('accepts a key built from trigger or step data', () => {
    expect(lintKeyTemplate('invoice-{{ trigger.body.order.id }}')).toEqual([]);
    expect(lintKeyTemplate('{{ steps.lookup.output.customerId }}')).toEqual([]);
    expect(lintKeyTemplate('{{ trigger.headers.webhook-id }}', sample)).toEqual([]);
  });

  it.each(['', '   ', '\n'])('asks for a key when the template is empty (%j)', (template) => {
    const lints = lintKeyTemplate(template);
    expect(lints).toEqual([expect.objectContaining({ severity: 'error', code: 'key_empty' })]);
    expect(lints[0]?.message).toContain('This step needs an idempotency key');
  });

  it.each(['invoice', '{{ flow.name }}', '{{ secrets.TOKEN }}-x'])(
    'refuses a key that is the same for every run: %s',
    (template) => {
      const lints = lintKeyTemplate(template);
      expect(codes(lints)).toEqual(['key_constant']);
      expect(lints[0]?.severity).toBe('error');
      expect(lints[0]?.message).toContain('the same for every run');
    },
  );

  it.each(['{{ trigger.body.id }}-{{ now }}', '{{ trigger.body.id }}-{{ run.attempt }}', '{{ trigger.body.id }}{{ run }}'])(
    'refuses a key that changes on every attempt: %s',
    (template) => {
      const lints = lintKeyTemplate(template);
      expect(codes(lints)).toEqual(['key_changes_every_attempt']);
      expect(lints[0]?.message).toBe('This key changes on every attempt, so it cannot stop duplicates.');
    },
  );

  it('reports both problems of a key made only of the time', () => {
    expect(codes(lintKeyTemplate('{{ now }}'))).toEqual(['key_constant', 'key_changes_every_attempt']);
  });

  it('warns about the run id, which a replay changes', () => {
    const lints = lintKeyTemplate('{{ trigger.body.id }}-{{ run.id }}');
    expect(lints).toEqual([expect.objectContaining({ severity: 'warning', code: 'key_uses_run_id' })]);
    expect(lints[0]?.message).toContain('replayed or re-delivered event gets a new run id');
  });

  it('warns about the time an event was received', () => {
    expect(lintKeyTemplate('{{ trigger.receivedAt }}')).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'key_uses_received_at' }),
    ]);
  });

  it('reports a syntax error alone, with its position', () => {
    const lints = lintKeyTemplate('order-{{ trigger.body.id');
    expect(codes(lints)).toEqual(['template_syntax']);
    expect(lints[0]?.severity).toBe('error');
    expect(lints[0]?.message).toContain('character 7');
  });

  it('checks the key as rendered for the sample', () => {
    expect(codes(lintKeyTemplate('{{ trigger.body.long }}', sample))).toEqual(['key_too_long']);
    expect(lintKeyTemplate('{{ trigger.body.long }}', sample)[0]?.message).toContain('It has 300');
    expect(codes(lintKeyTemplate('{{ trigger.body.multi }}', sample))).toEqual(['key_control_chars']);
    expect(codes(lintKeyTemplate('{{ trigger.body.blank }}', sample))).toEqual(['key_empty']);
    expect(lintKeyTemplate('{{ trigger.body.blank }}', sample)[0]?.message).toContain('comes out empty');
  });

  it('allows a key of exactly the maximum length', () => {
    const body = { exact: 'k'.repeat(MAX_KEY_LENGTH) };
    expect(lintKeyTemplate('{{ trigger.body.exact }}', { ...sample, trigger: { body, headers: {} } })).toEqual([]);
    expect(MAX_KEY_LENGTH).toBe(255);
  });

  it('does not hold missing sample data against the key', () => {
    expect(lintKeyTemplate('{{ trigger.body.customer.id }}', sample)).toEqual([]);
    expect(lintKeyTemplate('{{ steps.lookup.output.id }}', sample)).toEqual([]);
  });

  it('keeps the template rules when the sample renders fine', () => {
    expect(codes(lintKeyTemplate('{{ trigger.body.id }}-{{ run.id }}', sample))).toEqual(['key_uses_run_id']);
  });
});

describe('checkRenderedKey', () => {
  it('accepts an ordinary key', () => {
    expect(() => checkRenderedKey('invoice-4417')).not.toThrow();
    expect(() => checkRenderedKey('k'.repeat(255))).not.toThrow();
  });

  it.each([
    ['', 'empty'],
    ['  ', 'empty'],
    ['k'.repeat(256), 'longer than 255'],
    ['a\u0000b', 'control characters'],
    ['tab\there', 'control characters'],
    ['del\u007f', 'control characters'],
  ])('refuses %j at run time', (key, words) => {
    expect(() => checkRenderedKey(key)).toThrow(NonRetriableError);
    expect(() => checkRenderedKey(key)).toThrow(words);
  });
});
