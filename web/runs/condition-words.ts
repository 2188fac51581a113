/**
 * Which way a Condition went, in words: "50 is more than 30 → Yes". The condition's
 * output records what it compared and the exit it took (`branch`), so the sentence states
 * the fact that held, then the exit — never the raw `{"left":…,"op":…}`.
 */

export interface ConditionOutcome {
  branch: 'true' | 'false';
  sentence: string;
}

/** The words on a condition's exits, as the editor draws them. */
export const EXIT_WORDS: Record<'true' | 'false', string> = { true: 'Yes', false: 'No' };

// What each operator says when it held, and when it did not.
const OPERATOR_WORDS: Record<string, { held: string; not: string }> = {
  equals: { held: 'equals', not: 'does not equal' },
  not_equals: { held: 'does not equal', not: 'equals' },
  contains: { held: 'contains', not: 'does not contain' },
  gt: { held: 'is more than', not: 'is not more than' },
  lt: { held: 'is less than', not: 'is not less than' },
};

/** A value as a person reads it: numbers bare, text in quotes, nothing as "nothing". */
export function valueWords(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') {
    if (value === '') return 'empty text';
    if (/^-?\d+(?:\.\d+)?$/.test(value.trim())) return value.trim();
    return `“${shorten(value)}”`;
  }
  return shorten(JSON.stringify(value));
}

function shorten(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The sentence for a condition's recorded output, or null when the output is not one. */
export function conditionOutcome(output: unknown): ConditionOutcome | null {
  if (!output || typeof output !== 'object') return null;
  const recorded = output as { result?: unknown; branch?: unknown; left?: unknown; op?: unknown; right?: unknown };
  // Outputs written before the branch was recorded name it only by their result.
  const branch = recorded.branch === 'true' || recorded.branch === 'false' ? recorded.branch : typeof recorded.result === 'boolean' ? (recorded.result ? 'true' : 'false') : null;
  if (branch === null || typeof recorded.op !== 'string') return null;
  const held = branch === 'true';
  let fact: string;
  if (recorded.op === 'exists') {
    fact = held ? `a value is there (${valueWords(recorded.left)})` : 'no value is there';
  } else {
    const words = OPERATOR_WORDS[recorded.op];
    if (!words) return null;
    fact = `${valueWords(recorded.left)} ${held ? words.held : words.not} ${valueWords(recorded.right)}`;
  }
  return { branch, sentence: `${capitalize(fact)} → ${EXIT_WORDS[branch]}` };
}

function capitalize(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}
