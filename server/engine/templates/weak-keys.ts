import { formatPath, templatePaths } from '../../../core/templates/parse.ts';
import { MissingPathError, lookupPath, type RenderContext } from '../../../core/templates/render.ts';
import type { KeyLint } from './lint-key.ts';

/**
 * Two ways a key can look fine and still be weak:
 * - it uses a field the samples do not have, so a real event shaped like a sample would
 *   fail to render it (a problem until the person confirms real events carry the field);
 * - it is built only from fields that name an amount, a date or a count, which two
 *   different things can share, so the second would be stopped as a duplicate.
 */

/** A sample input rendered as the context a run would see; `name` is how the person calls it. */
export interface NamedContext {
  name: string;
  context: RenderContext;
}

/**
 * Paths the samples can answer for: the trigger's body (a sample stands for it), and a
 * step's output only when that output is known (e.g. from an earlier test run). Headers,
 * the event id and the time come with a real delivery, so no sample can say they are missing.
 */
function checkable(path: readonly string[], context: RenderContext): boolean {
  if (path[0] === 'trigger') return path[1] === 'body';
  if (path[0] === 'steps') return path[1] !== undefined && Object.hasOwn(context.steps, path[1]);
  return false;
}

export function missingKeyFields(template: string, samples: readonly NamedContext[]): KeyLint[] {
  const paths = templatePaths(template);
  const missing = new Map<string, string[]>();
  for (const path of paths) {
    for (const sample of samples) {
      if (!checkable(path, sample.context)) continue;
      try {
        lookupPath(sample.context, path);
      } catch (cause) {
        if (!(cause instanceof MissingPathError)) throw cause;
        const shown = `{{ ${formatPath(path)} }}`;
        const lacking = missing.get(shown) ?? [];
        if (!lacking.includes(sample.name)) lacking.push(sample.name);
        missing.set(shown, lacking);
      }
    }
  }
  if (missing.size === 0) return [];
  const fields = [...missing.keys()];
  const names = [...new Set([...missing.values()].flat())];
  const which = names.length === 1 && names[0] === SAMPLE_INPUT ? 'the sample input does' : `the ${names.length === 1 ? 'sample' : 'samples'} ${listWords(names.map((name) => `"${name}"`))} do${names.length === 1 ? 'es' : ''}`;
  return [{
    severity: 'error',
    code: 'key_field_missing',
    message:
      `This key uses ${listWords(fields)}, which ${which} not have. A real event without ${fields.length === 1 ? 'it' : 'them'} ` +
      'would stop this step instead of acting. Add the field to the sample, or confirm it will be there in real events.',
  }];
}

/** The name the single `sampleInput` goes by until a flow has named samples. */
export const SAMPLE_INPUT = 'the sample input';

type WeakKind = 'amount' | 'date' | 'count';

const WEAK_WORDS: Record<WeakKind, readonly string[]> = {
  amount: ['total', 'subtotal', 'amount', 'price', 'sum', 'cost', 'fee', 'tax', 'balance'],
  date: ['date', 'time', 'timestamp', 'datetime', 'at', 'day', 'month', 'year'],
  count: ['count', 'qty', 'quantity'],
};

const KIND_WORDS: Record<WeakKind, string> = {
  amount: 'an amount',
  date: 'a date or a time',
  count: 'a count',
};

/** `created_at`, `createdAt`, `total-price` → their last word, lower case. */
function lastWord(segment: string): string {
  const words = segment.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[_\-\s]+/).filter(Boolean);
  return words.at(-1) ?? '';
}

export function weakKind(path: readonly string[]): WeakKind | null {
  const word = lastWord(path.at(-1) ?? '');
  for (const kind of Object.keys(WEAK_WORDS) as WeakKind[]) if (WEAK_WORDS[kind].includes(word)) return kind;
  return null;
}

/** A warning when every field the key uses names an amount, a date or a count. */
export function weakIdentity(template: string): KeyLint[] {
  // The time of arrival has its own warning (key_uses_received_at).
  const data = templatePaths(template).filter(
    (path) => (path[0] === 'trigger' || path[0] === 'steps') && !(path[0] === 'trigger' && (path[1] === 'receivedAt' || path.length === 1)),
  );
  if (data.length === 0) return [];
  const kinds = data.map(weakKind);
  if (kinds.some((kind) => kind === null)) return [];
  const first = data[0]!;
  const kind = kinds[0]!;
  const field = first.at(-1)!;
  const things = plural(owner(first));
  return [{
    severity: 'warning',
    code: 'key_not_identity',
    message:
      `${capitalise(KIND_WORDS[kind])} is not an identity: two ${things} can have the same ${field}, and the second would be ` +
      `stopped as a duplicate. Build the key from something that names one ${owner(first)}, such as its id.`,
  }];
}

/** What the field belongs to, by the segment before it: `order.total` → order; else event. */
function owner(path: readonly string[]): string {
  const parent = path.at(-2);
  if (parent === undefined || ['trigger', 'body', 'output', 'steps', 'headers'].includes(parent) || /^\d+$/.test(parent)) return 'event';
  return parent;
}

function plural(word: string): string {
  if (/(s|x|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
