import { UserError } from '../errors.ts';

/**
 * Template syntax: literal text with `{{ path }}` placeholders.
 *
 * A path starts with a plain segment and continues with `.segment`, `.0`, `[0]` or
 * `["quoted key"]`. A plain segment is any run of characters other than `.`, `{`, `}`,
 * `[`, `]` and whitespace, so header names such as `webhook-id` need no quoting.
 *
 * Parsing is a hand-written scan (no regular expressions) and results are cached,
 * because the same few templates are rendered for every step of every run.
 */

export interface TextPart {
  readonly kind: 'text';
  readonly text: string;
}

export interface PlaceholderPart {
  readonly kind: 'placeholder';
  readonly path: readonly string[];
  /** The whole placeholder as written, braces included. */
  readonly source: string;
  /** 0-based index of the opening `{{` in the template. */
  readonly index: number;
}

export type TemplatePart = TextPart | PlaceholderPart;

export interface ParsedTemplate {
  readonly parts: readonly TemplatePart[];
  /** Set when the template is one placeholder with at most whitespace around it. */
  readonly single: PlaceholderPart | null;
}

export class TemplateSyntaxError extends UserError {
  override name = 'TemplateSyntaxError';
  /** 0-based index of the problem in the template; the message shows it 1-based. */
  readonly index: number;
  constructor(message: string, index: number) {
    super(message);
    this.index = index;
  }
}

// Bounded so that user-typed drafts (one template per keystroke) cannot grow memory
// without limit (default: 2000 templates).
const CACHE_LIMIT = 2000;
const cache = new Map<string, ParsedTemplate>();

export function parseTemplate(text: string): readonly TemplatePart[] {
  return getParsedTemplate(text).parts;
}

export function templatePaths(text: string): string[][] {
  const paths: string[][] = [];
  for (const part of getParsedTemplate(text).parts) {
    if (part.kind === 'placeholder') paths.push([...part.path]);
  }
  return paths;
}

/** Throws TemplateSyntaxError when the text has `{{` but is not a valid template. */
export function hasPlaceholders(text: string): boolean {
  if (!text.includes('{{')) return false;
  return getParsedTemplate(text).parts.some((part) => part.kind === 'placeholder');
}

export function getParsedTemplate(text: string): ParsedTemplate {
  const cached = cache.get(text);
  if (cached) return cached;
  const parsed = scan(text);
  if (cache.size >= CACHE_LIMIT) {
    // Maps iterate in insertion order, so the first key is the oldest entry.
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(text, parsed);
  return parsed;
}

/** Writes a path back the way a person would type it: `trigger.headers.webhook-id`. */
export function formatPath(path: readonly string[]): string {
  let out = '';
  for (const segment of path) {
    if (isPlainSegment(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

const OPEN = 123; // {
const CLOSE = 125; // }
const DOT = 46;
const LBRACKET = 91;
const RBRACKET = 93;
const DQUOTE = 34;
const SQUOTE = 39;
const BACKSLASH = 92;

function scan(text: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let literal = '';
  let i = 0;
  for (;;) {
    const open = text.indexOf('{{', i);
    // A "}}" outside a placeholder is ordinary text: JSON bodies close nested objects that way.
    if (open === -1) {
      literal += text.slice(i);
      break;
    }
    // In a run like "{{{", the last two braces open the placeholder and the rest are
    // text, so JSON such as {"a":{{ x }}} keeps its own brace.
    let start = open;
    while (text.charCodeAt(start + 2) === OPEN) start++;
    literal += text.slice(i, start);
    const close = text.indexOf('}}', start + 2);
    if (close === -1) {
      throw new TemplateSyntaxError(
        `The "{{" at character ${start + 1} is never closed: "${excerpt(text, start)}". Add "}}" after the name of the value.`,
        start,
      );
    }
    const inner = text.slice(start + 2, close);
    const nestedOpen = inner.indexOf('{{');
    if (nestedOpen !== -1) {
      throw new TemplateSyntaxError(
        `The "{{" at character ${start + 1} is not closed before the next "{{" at character ${start + 3 + nestedOpen}: "${excerpt(text, start)}".`,
        start,
      );
    }
    if (literal !== '') parts.push({ kind: 'text', text: literal });
    literal = '';
    const source = text.slice(start, close + 2);
    parts.push({ kind: 'placeholder', path: parsePath(inner, start + 2, source), source, index: start });
    i = close + 2;
  }
  if (literal !== '') parts.push({ kind: 'text', text: literal });
  return { parts, single: findSingle(parts) };
}

function findSingle(parts: readonly TemplatePart[]): PlaceholderPart | null {
  let found: PlaceholderPart | null = null;
  for (const part of parts) {
    if (part.kind === 'placeholder') {
      if (found) return null;
      found = part;
    } else if (part.text.trim() !== '') {
      return null;
    }
  }
  return found;
}

/** `offset` is where `inner` starts in the whole template, for error positions. */
function parsePath(inner: string, offset: number, source: string): string[] {
  let i = skipSpace(inner, 0);
  let end = inner.length;
  while (end > i && isSpace(inner.charCodeAt(end - 1))) end--;
  if (i === end) {
    throw new TemplateSyntaxError(
      `The placeholder "${source}" at character ${offset - 1} is empty. Write the name of a value inside, e.g. {{ trigger.body.id }}.`,
      offset - 2,
    );
  }
  const bad = (at: number, why: string): TemplateSyntaxError =>
    new TemplateSyntaxError(
      `The placeholder "${source}" has a problem at character ${offset + at + 1}: ${why}`,
      offset + at,
    );

  const path: string[] = [];
  const first = readPlain(inner, i, end);
  if (first === i) throw bad(i, `a name must come first, found "${inner[i]}".`);
  path.push(inner.slice(i, first));
  i = first;
  while (i < end) {
    const c = inner.charCodeAt(i);
    if (c === DOT) {
      const stop = readPlain(inner, i + 1, end);
      if (stop === i + 1) throw bad(i, 'a name must follow each ".".');
      path.push(inner.slice(i + 1, stop));
      i = stop;
    } else if (c === LBRACKET) {
      const [segment, next] = readBracket(inner, i, end, bad);
      path.push(segment);
      i = next;
    } else if (isSpace(c)) {
      throw bad(i, 'a name cannot contain spaces; for a key with spaces write ["some key"].');
    } else {
      throw bad(i, `"${inner[i]}" cannot be used here.`);
    }
  }
  return path;
}

function readBracket(
  inner: string,
  start: number,
  end: number,
  bad: (at: number, why: string) => TemplateSyntaxError,
): [string, number] {
  const quote = inner.charCodeAt(start + 1);
  if (quote === DQUOTE || quote === SQUOTE) {
    let segment = '';
    let i = start + 2;
    while (i < end && inner.charCodeAt(i) !== quote) {
      // A backslash keeps the next character, so a key may contain its own quote.
      if (inner.charCodeAt(i) === BACKSLASH && i + 1 < end) i++;
      segment += inner[i];
      i++;
    }
    if (i >= end) throw bad(start, 'the quoted key is never closed.');
    if (inner.charCodeAt(i + 1) !== RBRACKET) throw bad(i + 1, 'a "]" must follow the quoted key.');
    return [segment, i + 2];
  }
  let i = start + 1;
  while (i < end && isDigit(inner.charCodeAt(i))) i++;
  if (i === start + 1 || inner.charCodeAt(i) !== RBRACKET) {
    throw bad(start, 'inside [ ] write a number such as [0] or a quoted key such as ["some key"].');
  }
  return [inner.slice(start + 1, i), i + 1];
}

function readPlain(text: string, start: number, end: number): number {
  let i = start;
  while (i < end && isPlainChar(text.charCodeAt(i))) i++;
  return i;
}

function isPlainSegment(segment: string): boolean {
  if (segment === '') return false;
  for (let i = 0; i < segment.length; i++) {
    if (!isPlainChar(segment.charCodeAt(i))) return false;
  }
  return true;
}

function isPlainChar(c: number): boolean {
  return c !== DOT && c !== OPEN && c !== CLOSE && c !== LBRACKET && c !== RBRACKET && !isSpace(c);
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x2028 || c === 0x2029 || c === 0xfeff;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function skipSpace(text: string, start: number): number {
  let i = start;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function excerpt(text: string, from: number): string {
  const piece = text.slice(from, from + 30);
  return from + 30 < text.length ? `${piece}…` : piece;
}
