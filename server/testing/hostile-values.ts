/**
 * Values an attacker or a broken client might send, drawn from a seeded generator so a
 * failing case can be repeated exactly. Deep values are built as JSON text, because
 * building them as objects and stringifying would overflow the test's own stack.
 */
import { seededRandom } from '../chaos/random.ts';

export interface Draw {
  /** A number in [0, 1). */
  next(): number;
  int(below: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

export function draw(seed: number): Draw {
  const next = seededRandom(seed);
  const int = (below: number) => Math.floor(next() * below);
  return { next, int, pick: (items) => items[int(items.length)]!, chance: (probability) => next() < probability };
}

export const HOSTILE_STRINGS: readonly string[] = [
  '', ' ', '\u0000', 'a\u0000b', '%00', '\u0001\u0002\t\n\r', '\u007f', '\uD800', '\uDFFF', '\uFFFE', '😀',
  '#99999999999999999999999', '#2147483648', '#-1', '#1.5', '1e+23', 'NaN', '-0',
  "' OR 1=1 --", '"; DROP TABLE runs; --', '\\', '../../etc/passwd', '{{ secrets.X }}', '{{ trigger.body }}',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype',
  'x'.repeat(300), 'x'.repeat(5_000), 'é'.repeat(3_000), '\u202Eevil',
];

export const HOSTILE_NUMBERS: readonly number[] = [
  -1, 0, -0, 1.5, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63, 1e23, -1e23, Number.MAX_VALUE, Number.MIN_VALUE,
];

/** Lists and objects `depth` levels deep, as JSON text. */
export const deepJson = (depth: number, shape: 'list' | 'object' = 'list') =>
  shape === 'list' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** JSON texts that JSON.stringify cannot produce from a test value, or should not. */
export function hostileJsonTexts(depths: readonly number[] = [99, 100, 101, 5_000, 50_000]): string[] {
  return [
    ...depths.flatMap((depth) => [deepJson(depth), deepJson(depth, 'object')]),
    '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    '99999999999999999999999999999999',
    '1e999',
    '-1e999',
    '{"id": 1e999}',
    `{${Array.from({ length: 20_000 }, (_, index) => `"k${index}": ${index}`).join(',')}}`,
    `[${'0,'.repeat(100_000)}0]`,
  ];
}

/** A wrong or hostile value of any type, as JSON text. */
export function hostileJson(d: Draw): string {
  switch (d.int(6)) {
    case 0: return JSON.stringify(d.pick(HOSTILE_STRINGS));
    case 1: return String(d.pick(HOSTILE_NUMBERS));
    case 2: return d.pick(['null', 'true', 'false', '[]', '{}', '[1,2,3]', '{"a":1}', '""']);
    case 3: return d.pick(hostileJsonTexts([101, 5_000, 20_000]));
    case 4: return `{${JSON.stringify(d.pick(HOSTILE_STRINGS))}: ${JSON.stringify(d.pick(HOSTILE_STRINGS))}}`;
    default: return `[${JSON.stringify(d.pick(HOSTILE_STRINGS))}, ${String(d.pick(HOSTILE_NUMBERS))}]`;
  }
}

/** Bytes that are not UTF-8 (lone continuation bytes, overlong forms, surrogates, 0xFF). */
export const INVALID_UTF8: readonly Buffer[] = [
  Buffer.from([0x80]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xff, 0xfe, 0x00]),
  Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xc3, 0x28, 0x00, 0xf8]), Buffer.from('"}')]),
];

export const ODD_CONTENT_TYPES: readonly (string | undefined)[] = [
  undefined, '', 'text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream',
  'APPLICATION/JSON', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/vnd.api+json',
  'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=iso-8859-1', 'application/json, text/plain',
  '*/*', ';;;', 'application/json\u00e9',
];
