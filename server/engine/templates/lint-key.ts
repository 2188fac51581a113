import { NonRetriableError } from '../errors.ts';
import { TemplateSyntaxError, templatePaths } from '../../../core/templates/parse.ts';
import { MissingPathError, renderTemplate, type RenderContext } from '../../../core/templates/render.ts';
import { missingKeyFields, weakIdentity, type NamedContext } from './weak-keys.ts';

/**
 * Checks an idempotency-key template before it is saved (DESIGN.md §4). A key must be
 * the same every time the same thing happens and different when something else
 * happens; each rule below catches one way that goes wrong.
 */

export interface KeyLint {
  severity: 'error' | 'warning';
  code: string;
  message: string;
}

/** Claims store keys in an indexed column (default limit: 255 characters). */
export const MAX_KEY_LENGTH = 255;

// C0 and C1 control characters and DEL: invisible, and they break logs and headers.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

const MESSAGES = {
  key_empty:
    'This step needs an idempotency key: a short text built from the data that stays the same ' +
    'every time the same thing happens, e.g. order-{{ trigger.body.order.id }}.',
  key_constant:
    'This key is the same for every run, so after the first run every run would be treated as a ' +
    'duplicate. Build it from the data, e.g. the order id.',
  key_changes_every_attempt: 'This key changes on every attempt, so it cannot stop duplicates.',
  key_uses_run_id:
    'A replayed or re-delivered event gets a new run id, so it would act again. Build the key ' +
    'from the data instead, e.g. the order id.',
  key_uses_received_at:
    'A re-delivered event arrives at a different time, so a key built from the time it was ' +
    'received would let it act again.',
  key_empty_rendered:
    'This key comes out empty once filled in, so it cannot tell one run from another. ' +
    'Check that the fields it uses have values.',
  key_too_long: `This key is longer than ${MAX_KEY_LENGTH} characters once filled in. Build it from ids rather than long texts.`,
  key_control_chars:
    'This key contains invisible control characters (such as line breaks) once filled in. Use ids or plain words.',
  key_uses_loop_index:
    "This key uses the item's position ({{ loop.index }}), which changes when the list is ordered differently, so " +
    'two items would share one key. Build it from the item itself, e.g. {{ item.id }}.',
  key_not_item_specific:
    'This key is the same for every item of the list, so two items would share one key and only the first would ' +
    'act. Add something from the item, e.g. {{ item.id }}.',
} as const;

export interface KeyLintOptions {
  /** The flow's samples: a key field one of them lacks is a problem (none given: not checked). */
  samples?: readonly NamedContext[];
  /** The person confirmed that real events carry the fields the samples lack. */
  confirmed?: boolean;
  /** The step is inside a For each step's body, where each item needs a key of its own. */
  inLoop?: boolean;
}

export function lintKeyTemplate(template: string, sample?: RenderContext, options: KeyLintOptions = {}): KeyLint[] {
  if (template.trim() === '') return [error('key_empty')];

  let paths: string[][];
  try {
    paths = templatePaths(template);
  } catch (cause) {
    if (!(cause instanceof TemplateSyntaxError)) throw cause;
    return [{ severity: 'error', code: 'template_syntax', message: cause.message }];
  }

  const lints: KeyLint[] = [];
  const usesItem = options.inLoop === true && paths.some((path) => path[0] === 'item');
  const usesData = usesItem || paths.some((path) => path[0] === 'trigger' || path[0] === 'steps');
  if (!usesData) lints.push(error('key_constant'));
  if (options.inLoop) lints.push(...loopKeyLints(paths, usesItem));
  if (paths.some(changesEveryAttempt)) lints.push(error('key_changes_every_attempt'));
  if (paths.some((path) => path[0] === 'run' && path[1] === 'id')) {
    lints.push({ severity: 'warning', code: 'key_uses_run_id', message: MESSAGES.key_uses_run_id });
  }
  if (paths.some((path) => path[0] === 'trigger' && (path[1] === 'receivedAt' || path.length === 1))) {
    lints.push({ severity: 'warning', code: 'key_uses_received_at', message: MESSAGES.key_uses_received_at });
  }
  if (usesData) lints.push(...weakIdentity(template));
  if (options.samples && !options.confirmed) lints.push(...missingKeyFields(template, options.samples));

  if (sample) {
    let rendered: string | undefined;
    try {
      rendered = renderTemplate(template, sample);
    } catch (cause) {
      // Sample data is often partial, and step outputs only exist in a real run.
      if (!(cause instanceof MissingPathError)) throw cause;
    }
    if (rendered !== undefined) {
      for (const problem of renderedKeyProblems(rendered)) {
        if (lints.some((lint) => lint.code === problem)) continue;
        lints.push({ severity: 'error', code: problem, message: renderedMessage(problem, rendered) });
      }
    }
  }
  return lints;
}

/** The run-time check of a rendered key, right before it is claimed. */
export function checkRenderedKey(key: string): void {
  const [problem] = renderedKeyProblems(key);
  if (problem !== undefined) throw new NonRetriableError(renderedMessage(problem, key));
}

function renderedMessage(problem: RenderedProblem, key: string): string {
  if (problem === 'key_empty') return MESSAGES.key_empty_rendered;
  if (problem === 'key_too_long') return `${MESSAGES.key_too_long} (It has ${key.length}.)`;
  return MESSAGES.key_control_chars;
}

type RenderedProblem = 'key_empty' | 'key_too_long' | 'key_control_chars';

function renderedKeyProblems(key: string): RenderedProblem[] {
  const problems: RenderedProblem[] = [];
  if (key.trim() === '') problems.push('key_empty');
  if (key.length > MAX_KEY_LENGTH) problems.push('key_too_long');
  if (CONTROL_CHARS.test(key)) problems.push('key_control_chars');
  return problems;
}

/** Inside a loop: a key every item shares, or one tied to the item's position, lets items collide. */
function loopKeyLints(paths: readonly string[][], usesItem: boolean): KeyLint[] {
  if (paths.some((path) => path[0] === 'loop')) return [{ severity: 'warning', code: 'key_uses_loop_index', message: MESSAGES.key_uses_loop_index }];
  if (!usesItem) return [{ severity: 'warning', code: 'key_not_item_specific', message: MESSAGES.key_not_item_specific }];
  return [];
}

/** `{{ run }}` renders the whole run, attempt included. */
function changesEveryAttempt(path: readonly string[]): boolean {
  if (path[0] === 'now') return true;
  return path[0] === 'run' && (path.length === 1 || path[1] === 'attempt');
}

function error(code: 'key_empty' | 'key_constant' | 'key_changes_every_attempt'): KeyLint {
  return { severity: 'error', code, message: MESSAGES[code] };
}
