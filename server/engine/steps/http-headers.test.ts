/**
 * The form in which a key travels in a header, and the header check made before a claim.
 */
import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkHeaders, keyHeaderValue } from './http-headers.ts';

describe('keys in a header', () => {
  it('sends printable ASCII keys as they are', () => {
    for (const key of ['4417:invoice', 'order 4417', 'a+b=c/d?e&f#g', '~!@#$^*()_{}|:"<>?[];\',./`']) expect(keyHeaderValue(key)).toBe(key);
  });

  it('percent-encodes the UTF-8 bytes of every other key, and every "%" in it', () => {
    expect(keyHeaderValue('Bestellung-Ü-4417-€')).toBe('Bestellung-%C3%9C-4417-%E2%82%AC');
    expect(keyHeaderValue('Bestellung Ü')).toBe('Bestellung%20%C3%9C');
    expect(keyHeaderValue('50%-off')).toBe('50%25-off');
    expect(keyHeaderValue('café 🚀')).toBe('caf%C3%A9%20%F0%9F%9A%80');
    expect(keyHeaderValue(' padded ')).toBe('%20padded%20');
  });

  it('is one-to-one: different keys never share a header value, and decoding gives the key back', () => {
    const keys = ['abc%C3%9C', 'abcÜ', 'abc%25C3%259C', '50%-off', '50%25-off', 'x ', 'x', 'x%20', 'Bestellung-Ü-4417-€', 'naïve', 'nai\u0308ve'];
    const values = keys.map(keyHeaderValue);
    expect(new Set(values).size).toBe(keys.length);
    for (const [index, value] of values.entries()) {
      expect(() => validateHeaderValue('Idempotency-Key', value)).not.toThrow();
      expect(value.includes('%') ? decodeURIComponent(value) : value).toBe(keys[index]);
    }
  });
});

describe('checking headers before anything is claimed', () => {
  it('accepts what a request can carry', () => {
    expect(() => checkHeaders({ 'content-type': 'application/json', 'x-total': '12' }, 'Idempotency-Key')).not.toThrow();
  });

  it('refuses a value with a line break or a character headers cannot carry, naming the header', () => {
    expect(() => checkHeaders({ 'X-Customer': 'Ann\r\nX-Evil: 1' }, undefined)).toThrow(/^The header "X-Customer" cannot be sent: its value .* line break/);
    expect(() => checkHeaders({ 'X-Price': '12 €' }, undefined)).toThrow(/"X-Price" cannot be sent: .*€ or an emoji.*Nothing was sent\.$/);
  });

  it('refuses a header name with a space, including the key header', () => {
    expect(() => checkHeaders({ 'X Customer': 'Ann' }, undefined)).toThrow(/^The header name "X Customer" cannot be sent/);
    expect(() => checkHeaders({}, 'Idempotency Key')).toThrow(/^The key header name "Idempotency Key" cannot be sent/);
  });
});
