import { describe, expect, it } from 'vitest';
import { findJsonMistake } from './sample-json.ts';

describe('findJsonMistake', () => {
  it('accepts what JSON.parse accepts, and an empty box', () => {
    for (const text of ['', '  ', '{}', '[]', '{"a": [1, -2.5e3, true, null, "x\\n\\u00e9"], "b": {"c": ""}}', '"just text"', '42']) {
      expect(findJsonMistake(text), text).toBeNull();
      if (text.trim() !== '') expect(() => JSON.parse(text)).not.toThrow();
    }
  });

  it.each([
    // text, line, column, words
    ['{\n  "order": {\n    "id": "4417"\n    "total": 120\n  }\n}', 4, 5, 'a comma or a closing } should come before “"total":”'],
    ['{\n  "id": "evt_1",\n}', 3, 1, 'there is a comma after the last field'],
    ['{\n  "id": "evt_1"', 2, 16, 'the text ends where a comma or a closing } should come'],
    ["{ 'id': 1 }", 1, 3, 'a field name in double quotes should come before'],
    ['{ "id": \'x\' }', 1, 9, 'text must be in double quotes'],
    ['{ "note": "one\ntwo" }', 1, 11, 'no closing double quote on its line'],
    ['{ "id" 1 }', 1, 8, 'a colon (:) after the field name'],
    ['[1, 2,]', 1, 7, 'a comma after the last item'],
    ['{ "a": 1 } x', 1, 12, 'the sample already ended'],
    ['{ "path": "C:\\data" }', 1, 14, 'backslash'],
  ])('points at the mistake in %j', (text, line, column, words) => {
    const mistake = findJsonMistake(text);
    expect(mistake).toMatchObject({ line, column });
    expect(mistake?.problem).toContain(words);
    expect(() => JSON.parse(text)).toThrow();
  });
});
