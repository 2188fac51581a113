/**
 * Shared input schemas for the routers. Outside input must be refused here with a plain
 * sentence, before a query sees it: PostgreSQL cannot hold a NUL character in text, its
 * run numbers stop at 2^31 − 1, and values nested too deeply would exhaust the stack of
 * whatever walks them later.
 */
import { z } from 'zod';
import { describeValueProblem, findValueProblem } from '../engine/input-limits.ts';
import { MAX_RUN_NUMBER } from '../store/run-list.ts';

const NO_NUL = (text: string) => !text.includes('\u0000');

/** Text without NUL characters; `what` names it in the message ("The search"). */
export function plainText(what: string, max: number, min = 0) {
  return z
    .string()
    .min(min, `${what} is empty.`)
    .max(max, `${what} is longer than ${max} characters.`)
    .refine(NO_NUL, `${what} contains a NUL character, which cannot be stored or searched for; remove it.`);
}

/** An id of a flow, run, node or delivery: short, non-empty text without NUL. */
export const idText = (what: string) => plainText(what, 200, 1);

/** A run number or page cursor: within what the runs table can hold. */
export const runNumber = z
  .number()
  .int('A run number is a whole number.')
  .min(0, 'A run number cannot be negative.')
  .max(MAX_RUN_NUMBER + 1, `No run number is larger than ${MAX_RUN_NUMBER}.`);

/**
 * Any JSON value (a run's input, a flow document) nested at most MAX_JSON_DEPTH levels.
 * A flow document also refuses NUL anywhere: its names and ids become database rows.
 */
export function jsonValue(what: string, options: { refuseNul?: boolean } = {}) {
  return z.unknown().superRefine((value, context) => {
    const problem = findValueProblem(value, options);
    if (problem) context.addIssue({ code: 'custom', message: describeValueProblem(what, problem) });
  });
}
