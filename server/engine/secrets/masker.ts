/**
 * The one masker (DESIGN.md §10): it knows every secret's value in each of its encoded
 * forms (secret-forms.ts) and replaces them with SECRET_MASK in any text. The database
 * seam passes every string parameter through it, the logger every line, the tRPC seam
 * every answer; the secret service keeps its values current.
 *
 * Rules, so that masking never damages innocent text or the database:
 * - a value with fewer than 4 characters (spaces at either end aside) is never masked: it
 *   would hide too much ordinary text, so the secret service refuses to store one;
 * - a value of 4 to 7 characters is masked only where it stands alone, not inside a
 *   longer run of letters, digits and underscores (ids, longer words, numbers);
 * - a value of 8 characters or more is masked wherever it appears;
 * - a value that is an engine word (a run, claim or step status, a timeline event type,
 *   a trigger kind) is never masked, so statuses stay what the SQL expects;
 * - a text that is JSON is masked inside its strings (and a number or literal that holds
 *   a secret becomes the mark as a string), so the result is still valid JSON;
 * - a run of base64 that decodes to text holding a secret is masked whole, which catches
 *   HTTP Basic credentials (`user:value`) without knowing the user.
 * Values are remembered for the life of the process, a changed or deleted one included:
 * runs that used it may still be reporting.
 */
import { SECRET_MASK } from '../../../core/templates/render.ts';
import { RUN_STATUSES, TIMELINE_EVENT_TYPES } from '../types.ts';
import { secretForms } from './secret-forms.ts';

export { SECRET_MASK };

/** Shorter values (spaces at either end aside) are refused by the secret service and never masked. */
export const MIN_SECRET_LENGTH = 4;
/** Values shorter than this are masked only where they stand alone. */
export const WHOLE_WORD_BELOW = 8;

const ENGINE_WORDS: ReadonlySet<string> = new Set<string>([
  ...RUN_STATUSES, ...TIMELINE_EVENT_TYPES, 'in_progress', 'uncertain', 'skipped',
  // Trigger kinds, which queries compare.
  'manual', 'webhook', 'schedule', 'replay',
]);

/** How deep JSON texts inside JSON strings are opened (a body kept as text inside an event). */
const MAX_JSON_DEPTH = 4;
/** The shortest base64 run worth decoding: a 4-character value alone. */
const MIN_BASE64_RUN = 6;

/** 1: a base64 or base64url character; 2: one that ids and words do not hold (A–Z, +, /, -). */
const BASE64_CHAR = new Uint8Array(128);
for (const char of 'abcdefghijklmnopqrstuvwxyz0123456789_') BASE64_CHAR[char.charCodeAt(0)] = 1;
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ+/-') BASE64_CHAR[char.charCodeAt(0)] = 2;
const PADDING = '='.charCodeAt(0);
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"|[^\s{}[\],:"]+/g;
const WORD_CHAR = /^[\p{L}\p{N}_]$/u;

export interface Masker {
  /** False while no value is known: every caller can skip its work. */
  readonly active: boolean;
  text(value: string): string;
  /** Strings anywhere in a JSON-like value, keys included; unchanged parts keep their identity. */
  deep<T>(value: T): T;
  /** Adds values to mask (never forgets one during the process). */
  remember(values: Iterable<string>): void;
}

/** Whether a value is long enough to be kept as a secret (the secret service's rule). */
export function longEnoughToMask(value: string): boolean {
  return [...value.trim()].length >= MIN_SECRET_LENGTH;
}

function masksAtAll(value: string): boolean {
  return longEnoughToMask(value) && !SECRET_MASK.includes(value) && !ENGINE_WORDS.has(value);
}

interface Pattern {
  form: string;
  base64: boolean;
  wholeWord: boolean;
}

interface Compiled {
  /** Global: every form, longest first. */
  find: RegExp;
  /** The same without state, for yes/no questions. */
  test: RegExp;
  base64: ReadonlySet<string>;
  /** No shorter text can hold a form. */
  shortest: number;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function patternSource({ form, wholeWord }: Pattern): string {
  let source = escapeRegExp(form);
  if (!wholeWord) return source;
  const chars = [...form];
  if (WORD_CHAR.test(chars[0]!)) source = `(?<![\\p{L}\\p{N}_])${source}`;
  if (WORD_CHAR.test(chars[chars.length - 1]!)) source = `${source}(?![\\p{L}\\p{N}_])`;
  return source;
}

function patternsOf(value: string): Pattern[] {
  const wholeWord = [...value].length < WHOLE_WORD_BELOW;
  const forms = secretForms(value);
  return [
    ...forms.text.map((form) => ({ form, base64: false, wholeWord })),
    ...forms.base64.filter((form) => form.length >= MIN_BASE64_RUN).map((form) => ({ form, base64: true, wholeWord })),
  ];
}

function compile(patterns: Iterable<Pattern>): Compiled | null {
  const byForm = new Map<string, Pattern>();
  for (const pattern of patterns) {
    const known = byForm.get(pattern.form);
    // The same form from a long and a short value: the long value's rule (everywhere) wins.
    if (!known || (known.wholeWord && !pattern.wholeWord)) byForm.set(pattern.form, pattern);
  }
  if (byForm.size === 0) return null;
  const ordered = [...byForm.values()].sort((a, b) => b.form.length - a.form.length);
  const source = ordered.map(patternSource).join('|');
  const flags = ordered.some((pattern) => pattern.wholeWord) ? 'u' : '';
  return {
    find: new RegExp(source, `g${flags}`),
    test: new RegExp(source, flags),
    base64: new Set(ordered.filter((pattern) => pattern.base64).map((pattern) => pattern.form)),
    shortest: Math.min(...ordered.map((pattern) => pattern.form.length)),
  };
}

export function createMasker(values: Iterable<string> = []): Masker {
  const known = new Map<string, Pattern[]>();
  let compiled: Compiled | null = null;

  const text = (value: string): string =>
    compiled === null || value.length < compiled.shortest ? value : maskText(value, compiled, 0);

  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      value.forEach((item, index) => {
        const masked = walk(item);
        if (masked !== item) (out ??= [...value])[index] = masked;
      });
      return out ?? value;
    }
    if (isPlainObject(value)) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const maskedKey = text(key);
        const masked = walk(item);
        if (maskedKey !== key || masked !== item) changed = true;
        out[maskedKey] = masked;
      }
      return changed ? out : value;
    }
    return value;
  };

  const masker: Masker = {
    get active() {
      return compiled !== null;
    },
    text,
    deep: <T>(value: T): T => (compiled === null ? value : (walk(value) as T)),
    remember(more) {
      let added = false;
      for (const value of more) {
        if (typeof value !== 'string' || known.has(value) || !masksAtAll(value)) continue;
        known.set(value, patternsOf(value));
        added = true;
      }
      if (added) compiled = compile([...known.values()].flat());
    },
  };
  masker.remember(values);
  return masker;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function maskText(value: string, compiled: Compiled, depth: number): string {
  if (!compiled.test.test(value) && !holdsEncodedSecret(value, compiled)) return value;
  if (depth < MAX_JSON_DEPTH && looksLikeJson(value)) {
    const masked = maskJson(value, compiled, depth);
    if (masked !== undefined) return masked;
  }
  return maskPlain(value, compiled);
}

function looksLikeJson(value: string): boolean {
  const first = value.trimStart()[0];
  return first === '{' || first === '[' || first === '"';
}

/** Masks inside each string and bare token of a JSON text; undefined when it is not JSON. */
function maskJson(value: string, compiled: Compiled, depth: number): string | undefined {
  try {
    JSON.parse(value);
  } catch {
    return undefined;
  }
  return value.replace(JSON_TOKEN, (token) => {
    if (token.startsWith('"')) {
      const inner = JSON.parse(token) as string;
      const masked = inner.length < compiled.shortest ? inner : maskText(inner, compiled, depth + 1);
      return masked === inner ? token : JSON.stringify(masked);
    }
    // A number or literal holding a secret becomes the mark, as a string so the JSON stays valid.
    return maskPlain(token, compiled) === token ? token : JSON.stringify(SECRET_MASK);
  });
}

function isBase64Char(char: string | undefined): boolean {
  return char !== undefined && char.charCodeAt(0) < 128 && BASE64_CHAR[char.charCodeAt(0)] !== 0;
}

/**
 * Calls `visit(start, end)` for every run of base64 characters (with its padding) long
 * enough to hold a value and likely to be base64: runs of lower-case letters, digits and
 * underscores are ids and words, while base64 of text nearly always holds an upper-case
 * letter, `+`, `/`, `-` or padding. A loop over char codes: a regular expression cost
 * twice as much on long texts. `visit` returns true to stop.
 */
function forEachEncodedRun(value: string, visit: (start: number, end: number) => boolean): void {
  const length = value.length;
  let index = 0;
  while (index < length) {
    let code = value.charCodeAt(index);
    if (code >= 128 || BASE64_CHAR[code] === 0) {
      index++;
      continue;
    }
    const start = index;
    let encoded = false;
    while (index < length && (code = value.charCodeAt(index)) < 128 && BASE64_CHAR[code] !== 0) {
      if (BASE64_CHAR[code] === 2) encoded = true;
      index++;
    }
    while (index < length && value.charCodeAt(index) === PADDING) {
      encoded = true;
      index++;
    }
    if (encoded && index - start >= MIN_BASE64_RUN && visit(start, index)) return;
  }
}

function maskPlain(value: string, compiled: Compiled): string {
  const { find } = compiled;
  let out = '';
  let last = 0;
  find.lastIndex = 0;
  for (let match = find.exec(value); match !== null; match = find.exec(value)) {
    let start = match.index;
    let end = start + match[0].length;
    if (compiled.base64.has(match[0])) {
      // The value's base64 inside a longer run (e.g. `user:value` encoded): hide the run.
      while (isBase64Char(value[start - 1])) start--;
      while (isBase64Char(value[end])) end++;
      while (value[end] === '=') end++;
      find.lastIndex = end;
    }
    start = Math.max(start, last);
    out += `${value.slice(last, start)}${SECRET_MASK}`;
    last = end;
  }
  out += value.slice(last);
  return maskEncodedRuns(out, compiled);
}

function decodedHoldsSecret(run: string, compiled: Compiled): boolean {
  // Four offsets cover every alignment of the value inside a longer encoded text.
  for (let offset = 0; offset < 4 && run.length - offset >= MIN_BASE64_RUN; offset++) {
    if (compiled.test.test(Buffer.from(run.slice(offset), 'base64').toString('utf8'))) return true;
  }
  return false;
}

function holdsEncodedSecret(value: string, compiled: Compiled): boolean {
  let found = false;
  forEachEncodedRun(value, (start, end) => (found = decodedHoldsSecret(value.slice(start, end), compiled)));
  return found;
}

function maskEncodedRuns(value: string, compiled: Compiled): string {
  let out = '';
  let last = 0;
  forEachEncodedRun(value, (start, end) => {
    if (decodedHoldsSecret(value.slice(start, end), compiled)) {
      out += `${value.slice(last, start)}${SECRET_MASK}`;
      last = end;
    }
    return false;
  });
  return last === 0 ? value : out + value.slice(last);
}
