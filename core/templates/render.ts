import { UserError } from '../errors.ts';
import { formatPath, getParsedTemplate } from './parse.ts';

/**
 * Strict rendering: a placeholder whose value is missing is an error that names the
 * path, never an empty string, because a silently empty key or URL would do the wrong
 * thing outside Onceflow. Only data is read: own properties of plain values, no
 * prototype walking and no functions, so a template can never run code.
 */

export interface RenderContext {
  trigger: {
    body: unknown;
    headers: Record<string, unknown>;
    eventId?: string;
    receivedAt?: string;
  };
  steps: Record<string, { output: unknown }>;
  flow?: Record<string, unknown>;
  secrets?: Record<string, string>;
  /** `run.id` and `run.attempt` change between attempts; keys must not use them. */
  run?: { id: string; attempt: number };
  now?: string | Date;
  /** Inside a For each step's body: the current item of the list. */
  item?: unknown;
  /** Inside a For each step's body: the item's position (from 1) and how many items there are. */
  loop?: { index: number; count: number };
}

export class MissingPathError extends UserError {
  override name = 'MissingPathError';
  /** The full path as written in a template, e.g. `trigger.body.order.id`. */
  readonly path: string;
  /** The same path as segments, e.g. `['trigger', 'headers', 'webhook-id']`. */
  readonly segments: readonly string[];
  constructor(message: string, segments: readonly string[]) {
    super(message);
    this.segments = segments;
    this.path = formatPath(segments);
  }
}

export function renderTemplate(text: string, context: RenderContext): string {
  const { parts } = getParsedTemplate(text);
  let out = '';
  for (const part of parts) {
    out += part.kind === 'text' ? part.text : stringify(lookup(context, part.path));
  }
  return out;
}

/** One placeholder alone keeps its value's type (number, object…); anything else is text. */
export function renderValue(text: string, context: RenderContext): unknown {
  const parsed = getParsedTemplate(text);
  if (parsed.single) return lookup(context, parsed.single.path);
  return renderTemplate(text, context);
}

/** Renders every string inside a JSON-like value; keys and non-strings are kept as they are. */
export function renderDeep(value: unknown, context: RenderContext): unknown {
  if (typeof value === 'string') return renderTemplate(value, context);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, context));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = renderDeep(item, context);
    return out;
  }
  return value;
}

/** Looks up one path (as segments) with the same rules as a placeholder. */
export function lookupPath(context: RenderContext, path: readonly string[]): unknown {
  return lookup(context, path);
}

function lookup(context: RenderContext, path: readonly string[]): unknown {
  // All secrets at once would end up in a body or a log; each must be named.
  if (path.length === 1 && path[0] === 'secrets') throw missing(path, 1, context.secrets);
  let current: unknown = context;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i] as string;
    const next = ownValue(current, segment);
    if (next === undefined) throw missing(path, i, current);
    current = next;
  }
  return current;
}

function ownValue(container: unknown, segment: string): unknown {
  if (container === null || typeof container !== 'object') return undefined;
  if (!Object.hasOwn(container, segment)) return undefined;
  const value: unknown = (container as Record<string, unknown>)[segment];
  return typeof value === 'function' ? undefined : value;
}

function missing(
  path: readonly string[],
  at: number,
  container: unknown,
): MissingPathError {
  const full = formatPath(path);
  const segment = path[at] as string;
  const root = path[0];
  if (root === 'secrets' && at <= 1) {
    const name = path[1] ?? '';
    return new MissingPathError(
      name === ''
        ? `"secrets" needs the name of a secret, e.g. {{ secrets.API_TOKEN }}.`
        : `No secret named "${name}" is stored, so "${full}" cannot be filled in. Add the secret or correct its name.`,
      path,
    );
  }
  if (root === 'steps' && at === 1) {
    return new MissingPathError(
      `The value "${full}" does not exist in this run's data (step "${segment}" has no output yet: it has not run, or there is no such step).`,
      path,
    );
  }
  if (at > 0 && (container === null || typeof container !== 'object')) {
    const parent = formatPath(path.slice(0, at));
    return new MissingPathError(
      `The value "${full}" does not exist in this run's data ("${parent}" is ${describeKind(container)}, so it has no "${segment}").`,
      path,
    );
  }
  return new MissingPathError(
    `The value "${full}" does not exist in this run's data (missing "${segment}").`,
    path,
  );
}

function describeKind(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (typeof value === 'string') return 'a text';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a yes/no value';
  return 'not a group of fields';
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value) ?? '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Every non-empty secret value of the context, for masking what is shown or stored. */
export function collectSecretValues(context: Pick<RenderContext, 'secrets'>): string[] {
  const values: string[] = [];
  for (const value of Object.values(context.secrets ?? {})) {
    if (typeof value === 'string' && value !== '') values.push(value);
  }
  return values;
}

/** What a secret value is replaced with wherever it would be stored or shown (server/engine/secrets/masker.ts). */
export const SECRET_MASK = '••••••';
