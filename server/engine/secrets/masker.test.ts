/**
 * The masker on its own: a seeded property over awkward values in every encoded form a
 * receiver, a serializer or a URL parser may give them back in, and the rules that keep
 * innocent text and JSON intact.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../chaos/random.ts';
import { createMasker, SECRET_MASK } from './masker.ts';

const PIECES = ['a', 'Z', '7', '"', '\\', '&', '%', '%20', ' ', '+', '/', 'ü', 'ß', '€', '=', '?', "'", '<', '>', ':', '😀', '_', '-', '.', 'k', 'Q', '\n'];

function awkwardValue(random: () => number, minLength: number, maxLength: number): string {
  const length = minLength + Math.floor(random() * (maxLength - minLength + 1));
  let value = '';
  while ([...value.trim()].length < length) value += PIECES[Math.floor(random() * PIECES.length)];
  // A value starts and ends with a letter here, so "stands alone" is decided by what is around it.
  return `x${value.trim()}y`;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const pythonJson = (value: unknown) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
const goJson = (value: unknown) => JSON.stringify(value).replace(/[<>&]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
const phpJson = (value: unknown) => JSON.stringify(value).replace(/\//g, '\\/');
const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Texts that hold `value`, each as some system would write it back. */
function carriers(value: string): { name: string; text: string; json: boolean }[] {
  const body = JSON.stringify({ password: value, note: 'KEEP this note' });
  const list: { name: string; text: string; json: boolean }[] = [
    { name: 'raw in prose', text: `The token ${value} was refused. KEEP this note`, json: false },
    { name: 'JSON', text: JSON.stringify({ echo: value, note: 'KEEP this note' }), json: true },
    { name: 'JSON in JSON', text: JSON.stringify({ body, note: 'KEEP this note' }), json: true },
    { name: 'JSON in JSON in JSON', text: JSON.stringify({ data: JSON.stringify({ body }), note: 'KEEP' }), json: true },
    { name: 'Python-style JSON', text: pythonJson({ echo: value, note: 'KEEP this note' }), json: true },
    { name: 'Go-style JSON', text: goJson({ echo: value, note: 'KEEP' }), json: true },
    { name: 'PHP-style JSON', text: phpJson({ echo: value, note: 'KEEP' }), json: true },
    { name: 'query, encodeURIComponent', text: `/charge?token=${encodeURIComponent(value)}&KEEP=1`, json: false },
    { name: 'query, lower-case escapes', text: `/charge?token=${encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}&KEEP`, json: false },
    { name: 'form body', text: `${new URLSearchParams({ token: value, keep: 'KEEP this note' })}`, json: false },
    { name: 'URL parser', text: `could not reach ${new URL(`http://127.0.0.1:9/x?token=${value}`).href} (KEEP)`, json: false },
    { name: 'HTML page', text: `<p>Bad token: ${html(value)}</p> KEEP`, json: false },
    { name: 'base64', text: `data ${b64(value)} KEEP`, json: false },
    { name: 'base64url', text: `data ${Buffer.from(value).toString('base64url')} KEEP`, json: false },
    { name: 'HTTP Basic', text: JSON.stringify({ authorization: `Basic ${b64(`ann:${value}`)}`, note: 'KEEP this note' }), json: true },
    { name: 'SMTP AUTH PLAIN', text: `535 Authentication failed: ${b64(`\u0000ann\u0000${value}`)} KEEP`, json: false },
    { name: 'base64 of a JSON body', text: JSON.stringify({ raw: b64(body), note: 'KEEP this note' }), json: true },
    { name: 'base64 glued to other base64', text: `x${b64(`prefix-${value}-suffix`)} KEEP`, json: false },
  ];
  return list;
}

/** Every way the value could still be read from a text. */
function readable(value: string): string[] {
  return [
    value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), b64(value).replace(/=+$/, ''),
    Buffer.from(value).toString('base64url'), b64(`ann:${value}`).replace(/=+$/, ''),
  ];
}

describe('masker: every encoded form of awkward values (seeded)', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`seed ${seed}`, () => {
      const random = seededRandom(seed);
      for (let round = 0; round < 12; round++) {
        const long = awkwardValue(random, 8, 24);
        const short = awkwardValue(random, 2, 5);
        const masker = createMasker([long, short]);
        for (const value of [long, short]) {
          for (const carrier of carriers(value)) {
            const masked = masker.text(carrier.text);
            const where = `${carrier.name} of ${JSON.stringify(value)} → ${masked}`;
            for (const form of readable(value)) expect(masked, where).not.toContain(form);
            expect(masked, where).toContain(SECRET_MASK);
            expect(masked, where).toContain('KEEP');
            if (carrier.json) expect(() => JSON.parse(masked), where).not.toThrow();
            // Masking what is masked changes nothing: keys and ids stay what they were stored as.
            expect(masker.text(masked), where).toBe(masked);
          }
        }
      }
    });
  }
});

describe('masker rules', () => {
  it('does nothing, and allocates nothing, while it knows no value', () => {
    const masker = createMasker();
    const value = { a: ['tok'] };
    expect(masker.active).toBe(false);
    expect(masker.deep(value)).toBe(value);
    expect(masker.text('anything')).toBe('anything');
  });

  it('never masks values under 4 characters, engine words, or parts of the mark', () => {
    const masker = createMasker(['abc', '  ab  ', 'succeeded', 'needs_review', 'step.failed', '••••']);
    expect(masker.active).toBe(false);
    expect(masker.text('abc succeeded needs_review step.failed ••••••')).toBe('abc succeeded needs_review step.failed ••••••');
  });

  it('masks a value of 4 to 7 characters only where it stands alone', () => {
    const masker = createMasker(['1234', 'pass1']);
    expect(masker.text('order 1234, code=1234&x; "1234"')).toBe('order ••••••, code=••••••&x; "••••••"');
    expect(masker.text('912345 run_01234 1234x x1234 pass12 apass1')).toBe('912345 run_01234 1234x x1234 pass12 apass1');
    expect(masker.text('Basic ' + b64('ann:pass1'))).toBe('Basic ••••••');
  });

  it('masks a value of 8 characters or more wherever it appears', () => {
    const masker = createMasker(['tok_live_123']);
    expect(masker.text('xtok_live_123y')).toBe('x••••••y');
  });

  it('keeps JSON valid: a number or literal holding a value becomes the mark as a string', () => {
    const masker = createMasker(['12345678', '","b":"']);
    const text = '{"pin":12345678,"list":[12345678,"a 12345678 b"],"a":"x","b":"y"}';
    const masked = masker.text(text);
    expect(JSON.parse(masked)).toEqual({ pin: '••••••', list: ['••••••', 'a •••••• b'], a: 'x', b: 'y' });
  });

  it('hides the path and query of a value that is a web address, as a chat webhook token', () => {
    const url = 'https://hooks.chat.example/services/T000/B000/XXXXsecretXXXX';
    const masker = createMasker([url]);
    expect(masker.text('POST /services/T000/B000/XXXXsecretXXXX answered 404')).toBe('POST •••••• answered 404');
    expect(masker.text(`could not reach ${url}`)).toBe('could not reach ••••••');
  });

  it('masks keys and strings deep inside values and keeps unchanged parts as they are', () => {
    const masker = createMasker(['s3cr3t-value']);
    const untouched = { list: [1, 'plain'] };
    const value = { headers: { authorization: 'Bearer s3cr3t-value', 's3cr3t-value': 'as a key' }, untouched };
    const masked = masker.deep(value);
    expect(masked).toEqual({ headers: { authorization: 'Bearer ••••••', '••••••': 'as a key' }, untouched });
    expect(masked.untouched).toBe(untouched);
    expect(value.headers.authorization).toBe('Bearer s3cr3t-value');
  });

  it('learns values as they come and forgets none', () => {
    const masker = createMasker();
    masker.remember(['first-value']);
    masker.remember(['second-value']);
    expect(masker.text('first-value second-value')).toBe('•••••• ••••••');
  });
});
