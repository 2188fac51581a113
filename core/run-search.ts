/**
 * What a person types in the runs page's search box, read the same way by the browser
 * (to say what it looks for) and the server (to look for it):
 *
 *   key 4417:invoice          runs one of whose steps used that key
 *   order.id = 4417           runs whose trigger input holds 4417 at order.id
 *   failed at Create invoice  failed runs that failed at that step (its name or id)
 *   #12, run_…, evt_1         a run number, run id or webhook event id (anything else)
 */

export type RunSearch =
  | { kind: 'key'; key: string }
  | { kind: 'input'; path: string; value: string }
  | { kind: 'failed-step'; step: string }
  | { kind: 'run'; text: string };

/** A value as typed, without the quotes around it: `"4417"` and `4417` find the same runs. */
function unquoted(text: string): string {
  const trimmed = text.trim();
  const quoted = /^(["'])(.*)\1$/.exec(trimmed);
  return quoted ? quoted[2]! : trimmed;
}

/**
 * An input path as the search table holds it: dotted, from the trigger body. A path copied
 * from a template (`trigger.body.order.id`, `{{ trigger.body.order.id }}`) means the same.
 */
export function inputPath(text: string): string {
  return text.trim().replace(/^\{\{\s*/, '').replace(/\s*\}\}$/, '').replace(/^trigger\.body\./, '').replace(/\[(\d+)\]/g, '.$1');
}

const KEY = /^key\s*[:=]?\s+(.+)$/is;
const FAILED_STEP = /^failed\s+(?:at|in|step)\s+(.+)$/is;
// A path has no spaces and no `=` (or is a template's `{{ path }}`); the value is everything after the first `=`.
const INPUT = /^(\{\{\s*[^\s=}]+\s*\}\}|[^\s=]+)\s*=\s*(.*)$/s;

export function parseRunSearch(text: string): RunSearch {
  const trimmed = text.trim();
  const key = KEY.exec(trimmed);
  if (key) return { kind: 'key', key: unquoted(key[1]!) };
  const failed = FAILED_STEP.exec(trimmed);
  if (failed) return { kind: 'failed-step', step: unquoted(failed[1]!) };
  const input = INPUT.exec(trimmed);
  if (input && unquoted(input[2]!) !== '') return { kind: 'input', path: inputPath(input[1]!), value: unquoted(input[2]!) };
  return { kind: 'run', text: trimmed };
}

/** What the list shows, in words ("Runs whose input has order.id = 4417"). */
export function describeRunSearch(search: RunSearch): string {
  switch (search.kind) {
    case 'key': return `Runs that used the key ${search.key}`;
    case 'input': return `Runs whose input has ${search.path} = ${search.value}`;
    case 'failed-step': return `Failed runs that failed at the step ${search.step}`;
    case 'run': return `Runs with the number, id or event id ${search.text}`;
  }
}
