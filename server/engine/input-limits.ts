/**
 * Limits on the shape of values that come from outside (webhook bodies, run inputs, flow
 * documents), checked before anything recursive touches them. JSON.parse itself copes
 * with any depth, but JSON.stringify, template rendering, masking and the web's data
 * views walk values recursively and would run out of stack on a few thousand levels.
 */

/**
 * Objects and lists inside one another, counted from the outermost (default: 100, as
 * Ruby's JSON parser). Real webhook payloads stay well under 20.
 */
export const MAX_JSON_DEPTH = 100;

export type ValueProblem =
  | { kind: 'too-deep'; limit: number }
  | { kind: 'nul'; path: string };

/**
 * The first problem of a parsed JSON value, or null. Walks with an explicit stack, so a
 * value nested far beyond the limit is answered without recursion. With `refuseNul`, a
 * NUL character in any string or key is a problem too (PostgreSQL cannot store one in a
 * text column, and nothing legitimate contains one).
 */
export function findValueProblem(value: unknown, options: { maxDepth?: number; refuseNul?: boolean } = {}): ValueProblem | null {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const refuseNul = options.refuseNul ?? false;
  // Paths are only built when they may be reported: webhook intake checks depth alone.
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if (refuseNul && typeof entry.value === 'string' && entry.value.includes('\u0000')) {
      return { kind: 'nul', path: entry.path || '(the whole value)' };
    }
    if (entry.value === null || typeof entry.value !== 'object') continue;
    const depth = entry.depth + 1;
    if (depth > maxDepth) return { kind: 'too-deep', limit: maxDepth };
    if (Array.isArray(entry.value)) {
      for (let index = 0; index < entry.value.length; index++) {
        const item: unknown = entry.value[index];
        if (item !== null && typeof item === 'object') stack.push({ value: item, depth, path: refuseNul ? `${entry.path}[${index}]` : '' });
        else if (refuseNul && typeof item === 'string') stack.push({ value: item, depth, path: `${entry.path}[${index}]` });
      }
      continue;
    }
    for (const key of Object.keys(entry.value)) {
      const item: unknown = (entry.value as Record<string, unknown>)[key];
      const path = refuseNul ? (entry.path ? `${entry.path}.${key}` : key) : '';
      if (refuseNul && key.includes('\u0000')) return { kind: 'nul', path };
      if ((item !== null && typeof item === 'object') || (refuseNul && typeof item === 'string')) stack.push({ value: item, depth, path });
    }
  }
  return null;
}

/** One sentence for a person, naming what was sent (`what`: "The body", "The flow"). */
export function describeValueProblem(what: string, problem: ValueProblem): string {
  return problem.kind === 'too-deep'
    ? `${what} is nested too deeply: more than ${problem.limit} levels of objects and lists inside one another. Onceflow accepts at most ${problem.limit}; send a flatter structure.`
    : `${what} contains a NUL character (at ${problem.path.replaceAll('\u0000', '\\0')}), which cannot be stored; remove it and send it again.`;
}
