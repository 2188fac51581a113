import { UserError } from './errors.ts';

/**
 * Durations as people write them in the editor: a whole number and a unit, e.g. `500ms`,
 * `90s`, `15m`, `2h`, `3d`. One unit only, so there is a single way to write each value.
 */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const DURATION_PATTERN = /^(\d{1,9})(ms|s|m|h|d)$/;

export const DURATION_HINT = 'a number followed by ms, s, m, h or d, like 90s, 15m, 2h or 3d';

export function isDuration(text: string): boolean {
  return DURATION_PATTERN.test(text.trim());
}

export function parseDuration(text: string): number {
  const match = DURATION_PATTERN.exec(text.trim());
  if (!match) {
    throw new UserError(`"${text}" is not a length of time. Write ${DURATION_HINT}.`);
  }
  const unit = match[2] as keyof typeof UNIT_MS;
  return Number(match[1]) * UNIT_MS[unit];
}
