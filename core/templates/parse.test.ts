import { describe, expect, it } from 'vitest';
import { UserError } from '../errors.ts';
import {
  TemplateSyntaxError,
  formatPath,
  getParsedTemplate,
  hasPlaceholders,
  parseTemplate,
  templatePaths,
} from './parse.ts';

function syntaxError(text: string): TemplateSyntaxError {
  try {
    parseTemplate(text);
  } catch (error) {
    if (error instanceof TemplateSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected a syntax error for ${JSON.stringify(text)}`);
}

describe('parseTemplate', () => {
  it('splits literal text and placeholders', () => {
    expect(parseTemplate('order-{{ trigger.body.id }}:invoice')).toEqual([
      { kind: 'text', text: 'order-' },
      { kind: 'placeholder', path: ['trigger', 'body', 'id'], source: '{{ trigger.body.id }}', index: 6 },
      { kind: 'text', text: ':invoice' },
    ]);
  });

  it('accepts placeholders without inner whitespace and with tabs or newlines', () => {
    expect(templatePaths('{{trigger.body.id}}')).toEqual([['trigger', 'body', 'id']]);
    expect(templatePaths('{{\n\ttrigger.eventId  }}')).toEqual([['trigger', 'eventId']]);
  });

  it('keeps text without placeholders as one part, and the empty string as none', () => {
    expect(parseTemplate('plain text { with } braces')).toEqual([{ kind: 'text', text: 'plain text { with } braces' }]);
    expect(parseTemplate('')).toEqual([]);
  });

  it('reads hyphens and other punctuation as part of a name', () => {
    expect(templatePaths('{{ trigger.headers.webhook-id }}')).toEqual([['trigger', 'headers', 'webhook-id']]);
    expect(templatePaths('{{ steps.create_invoice.output.$ref }}')).toEqual([
      ['steps', 'create_invoice', 'output', '$ref'],
    ]);
  });

  it('reads numeric indexes written as .0 or [0]', () => {
    expect(templatePaths('{{ trigger.body.items.0.sku }}')).toEqual([['trigger', 'body', 'items', '0', 'sku']]);
    expect(templatePaths('{{ trigger.body.items[12].sku }}')).toEqual([['trigger', 'body', 'items', '12', 'sku']]);
  });

  it('reads quoted keys, with either quote and escaped quotes inside', () => {
    expect(templatePaths('{{ trigger.body["order id"] }}')).toEqual([['trigger', 'body', 'order id']]);
    expect(templatePaths("{{ trigger.body['a.b'][0] }}")).toEqual([['trigger', 'body', 'a.b', '0']]);
    expect(templatePaths('{{ trigger.body["say \\"hi\\""] }}')).toEqual([['trigger', 'body', 'say "hi"']]);
  });

  it('treats extra opening braces as text, so JSON can wrap a placeholder', () => {
    const parts = parseTemplate('{"n":{{{ trigger.body.n }}}');
    expect(parts).toEqual([
      { kind: 'text', text: '{"n":{' },
      { kind: 'placeholder', path: ['trigger', 'body', 'n'], source: '{{ trigger.body.n }}', index: 6 },
      { kind: 'text', text: '}' },
    ]);
  });

  it('finds several placeholders in order', () => {
    expect(templatePaths('{{ a }}-{{ b.c }}{{ d[1] }}')).toEqual([['a'], ['b', 'c'], ['d', '1']]);
  });

  it('marks a template that is exactly one placeholder, ignoring surrounding whitespace', () => {
    expect(getParsedTemplate('  {{ steps.a.output }} ').single?.path).toEqual(['steps', 'a', 'output']);
    expect(getParsedTemplate('x{{ steps.a.output }}').single).toBeNull();
    expect(getParsedTemplate('{{ a }}{{ b }}').single).toBeNull();
    expect(getParsedTemplate('no placeholder').single).toBeNull();
  });

  it('returns the same cached parse for the same text', () => {
    const text = '{{ trigger.body.cached }}';
    expect(getParsedTemplate(text)).toBe(getParsedTemplate(text));
  });

  it('returns copies from templatePaths, so callers cannot corrupt the cache', () => {
    const text = '{{ trigger.body.copy }}';
    const first = templatePaths(text);
    first[0]?.push('changed');
    expect(templatePaths(text)).toEqual([['trigger', 'body', 'copy']]);
  });

  it('keeps parsing correctly after the cache has had to drop entries', () => {
    for (let i = 0; i < 2500; i++) parseTemplate(`{{ trigger.body.f${i} }}`);
    expect(templatePaths('{{ trigger.body.f0 }}')).toEqual([['trigger', 'body', 'f0']]);
    expect(templatePaths('{{ trigger.body.f2499 }}')).toEqual([['trigger', 'body', 'f2499']]);
  });
});

describe('template syntax errors', () => {
  it('is a UserError with the position of the problem', () => {
    const error = syntaxError('abc {{ trigger.body.id');
    expect(error).toBeInstanceOf(UserError);
    expect(error.index).toBe(4);
    expect(error.message).toContain('character 5');
    expect(error.message).toContain('{{ trigger.body.id');
    expect(error.message).toContain('never closed');
  });

  it('reports an empty placeholder', () => {
    const error = syntaxError('key-{{   }}');
    expect(error.index).toBe(4);
    expect(error.message).toContain('"{{   }}"');
    expect(error.message).toContain('is empty');
  });

  it('keeps a closing pair outside a placeholder as text, so nested JSON bodies work', () => {
    const parts = parseTemplate('{"a": {"b": "{{ trigger.body.id }}"}}');
    expect(parts.filter((part) => part.kind === 'placeholder')).toHaveLength(1);
    expect(parts.at(-1)).toEqual({ kind: 'text', text: '"}}' });
  });

  it('reports a placeholder opened inside another', () => {
    const error = syntaxError('{{ a {{ b }}');
    expect(error.message).toContain('next "{{" at character 6');
    expect(error.index).toBe(0);
  });

  it.each([
    ['{{ trigger body }}', 'cannot contain spaces', 10],
    ['{{ trigger..body }}', 'must follow each "."', 10],
    ['{{ trigger.body. }}', 'must follow each "."', 15],
    ['{{ .body }}', 'a name must come first', 3],
    ['{{ trigger.body[x] }}', 'inside [ ]', 15],
    ['{{ trigger.body[1 }}', 'inside [ ]', 15],
    ['{{ trigger.body["x] }}', 'never closed', 15],
    ['{{ trigger.body["x"y] }}', 'must follow the quoted key', 19],
    ['{{ trigger.bo{dy }}', 'cannot be used here', 13],
  ])('reports a bad path in %s', (text, words, index) => {
    const error = syntaxError(text);
    expect(error.message).toContain(words);
    expect(error.message).toContain(text);
    expect(error.index).toBe(index);
    expect(error.message).toContain(`character ${index + 1}`);
  });

  it('does not cache failures: the same text fails every time', () => {
    expect(() => parseTemplate('{{ x')).toThrow(TemplateSyntaxError);
    expect(() => parseTemplate('{{ x')).toThrow(TemplateSyntaxError);
  });
});

describe('hasPlaceholders', () => {
  it('tells text with placeholders from plain text', () => {
    expect(hasPlaceholders('hello {{ trigger.body.name }}')).toBe(true);
    expect(hasPlaceholders('hello { name }')).toBe(false);
    expect(hasPlaceholders('')).toBe(false);
  });

  it('throws on text that looks like a template but is not one', () => {
    expect(() => hasPlaceholders('hello {{ name')).toThrow(TemplateSyntaxError);
    expect(hasPlaceholders('hello }}')).toBe(false);
  });
});

describe('formatPath', () => {
  it('writes plain names with dots and quotes the rest', () => {
    expect(formatPath(['trigger', 'headers', 'webhook-id'])).toBe('trigger.headers.webhook-id');
    expect(formatPath(['trigger', 'body', 'order id', '0'])).toBe('trigger.body["order id"].0');
  });

  it('round-trips through the parser', () => {
    const path = ['trigger', 'body', 'a.b', 'say "hi"', 'x'];
    expect(templatePaths(`{{ ${formatPath(path)} }}`)).toEqual([path]);
  });
});
