import { describe, expect, it } from 'vitest';
import { SECRET_MASK, collectSecretValues, maskSecrets, maskSecretsDeep } from './render.ts';

describe('maskSecrets', () => {
  it('replaces every occurrence of every secret', () => {
    expect(maskSecrets('token=abc123&again=abc123, pw=hunter2', ['abc123', 'hunter2'])).toBe(
      `token=${SECRET_MASK}&again=${SECRET_MASK}, pw=${SECRET_MASK}`,
    );
    expect(SECRET_MASK).toBe('••••••');
  });

  it('masks the longest secret first, so no part of it is left showing', () => {
    // If "abc" were masked first, "abcdef" would show as "••••••def".
    expect(maskSecrets('key abcdef and abc', ['abc', 'abcdef'])).toBe(`key ${SECRET_MASK} and ${SECRET_MASK}`);
  });

  it('ignores empty secrets and leaves text without secrets alone', () => {
    expect(maskSecrets('nothing here', ['', 'zzz'])).toBe('nothing here');
    expect(maskSecrets('', ['a'])).toBe('');
  });

  it('treats secret values as plain text, not as patterns', () => {
    expect(maskSecrets('a.b and axb', ['a.b'])).toBe(`${SECRET_MASK} and axb`);
    expect(maskSecrets('cost $1 (x)', ['$1 (x)'])).toBe(`cost ${SECRET_MASK}`);
  });
});

describe('maskSecretsDeep', () => {
  it('masks strings anywhere in lists and groups, keys included', () => {
    const value = {
      headers: { authorization: 'Bearer s3cr3t', s3cr3t: 'as a key' },
      list: ['s3cr3t', 1, true, null, { nested: 'x s3cr3t y' }],
    };
    expect(maskSecretsDeep(value, ['s3cr3t'])).toEqual({
      headers: { authorization: `Bearer ${SECRET_MASK}`, [SECRET_MASK]: 'as a key' },
      list: [SECRET_MASK, 1, true, null, { nested: `x ${SECRET_MASK} y` }],
    });
  });

  it('leaves the original untouched and returns it as is when there is nothing to mask', () => {
    const value = { a: 'tok' };
    expect(maskSecretsDeep(value, ['tok'])).toEqual({ a: SECRET_MASK });
    expect(value).toEqual({ a: 'tok' });
    expect(maskSecretsDeep(value, [''])).toBe(value);
  });
});

describe('collectSecretValues', () => {
  it('lists non-empty secret values', () => {
    expect(collectSecretValues({ secrets: { A: 'one', B: '', C: 'three' } })).toEqual(['one', 'three']);
    expect(collectSecretValues({})).toEqual([]);
  });
});
