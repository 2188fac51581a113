/**
 * What follows a step's outcome, for every kind of step: record it, park the run, try
 * again, fail, or stop for a person's review. One pure decision, so a step with side
 * effects and one without cannot drift apart; the protocol (protocol.ts) and the
 * executor (run-executor.ts) only carry it out.
 */
import { errorMessage, NonRetriableError, UserError } from './errors.ts';
import type { TypedStep } from './flow/planned-step.ts';
import type { StepOutcome } from './steps/types.ts';

export interface RetryPolicy {
  /** Tries after the first (default: 3). */
  max: number;
  backoff: 'exponential' | 'fixed';
  /** The first delay; doubles per try when exponential (default: the engine's retryBaseMs). */
  delayMs: number;
  /** Longest single delay, whatever the backoff or the receiver's hint. */
  maxDelayMs: number;
}

export function retryPolicy(step: TypedStep, defaults: { retryBaseMs: number; retryMaxDelayMs: number }): RetryPolicy {
  const retry = step.data.retry;
  return {
    max: retry?.max ?? 3,
    backoff: retry?.backoff ?? 'exponential',
    delayMs: retry?.delayMs ?? defaults.retryBaseMs,
    maxDelayMs: defaults.retryMaxDelayMs,
  };
}

/** The wait before try `retryNumber + 1`; a receiver's "retry after" hint may lengthen it. */
export function retryDelay(policy: RetryPolicy, retryNumber: number, hintMs?: number): number {
  const base = policy.backoff === 'fixed' ? policy.delayMs : policy.delayMs * 2 ** (retryNumber - 1);
  return Math.min(Math.max(base, hintMs ?? 0), policy.maxDelayMs);
}

export interface OutcomeContext {
  /** Which try this outcome ends, counting from 1. */
  attempt: number;
  policy: RetryPolicy;
  /** The step changes something outside Onceflow and acts under a claim. */
  sideEffect: boolean;
  /** The receiver deduplicates by the key we pass, so asking again cannot apply twice. */
  honoursKey: boolean;
  /** What the person chose for an unknown outcome (default: review). */
  onUncertain: 'review' | 'retry';
}

type Outcome<Kind extends StepOutcome['kind']> = Extract<StepOutcome, { kind: Kind }>;

export type Decision =
  | { action: 'record'; outcome: Outcome<'succeeded'> }
  /** Park the run until the outcome's time (a durable delay or a prerequisite). */
  | { action: 'park'; outcome: Outcome<'wait'> }
  | { action: 'retry'; message: string; delayMs: number }
  | { action: 'fail'; message: string; response?: unknown }
  /** It may or may not have happened and must not be repeated on a guess. */
  | { action: 'review'; message: string; response?: unknown };

export const SIDE_EFFECT_CANNOT_WAIT = 'A step with side effects cannot wait.';

/**
 * Not done (nothing reached the receiver, or it said "later") is retried while tries are
 * left. Refused fails at once. Ambiguous is retried only when a repeat is harmless: the
 * step changes nothing outside, the receiver honours the key, or the person accepted
 * at-least-once (`onUncertain: retry`); otherwise a person decides.
 */
export function decideOutcome(outcome: StepOutcome, context: OutcomeContext): Decision {
  const { attempt, policy } = context;
  const triesLeft = attempt <= policy.max;
  switch (outcome.kind) {
    case 'succeeded':
      return { action: 'record', outcome };
    case 'wait':
      return context.sideEffect ? { action: 'fail', message: SIDE_EFFECT_CANNOT_WAIT } : { action: 'park', outcome };
    case 'failed':
      return { action: 'fail', message: outcome.message, response: outcome.response };
    case 'not_done':
      return triesLeft
        ? { action: 'retry', message: outcome.message, delayMs: retryDelay(policy, attempt, outcome.retryAfterMs) }
        : { action: 'fail', message: outcome.message, response: outcome.response };
    case 'ambiguous': {
      const repeatable = !context.sideEffect || context.honoursKey || context.onUncertain === 'retry';
      if (!repeatable) return { action: 'review', message: outcome.message, response: outcome.response };
      return triesLeft
        ? { action: 'retry', message: outcome.message, delayMs: retryDelay(policy, attempt) }
        : { action: 'fail', message: outcome.message, response: outcome.response };
    }
  }
}

/**
 * A side-effect step's kind reports what happened as an outcome; a thrown error must
 * still settle the claim at once, never leave it in progress for a lease. A UserError or
 * NonRetriableError is raised over the input or the server's policy before anything is
 * sent (failed: the key may act again later). Anything else may have happened after the
 * request left: ambiguous, so a receiver that honours the key is asked again and any
 * other stops for review. An interrupted worker (shutdown, lost lease) rethrows and
 * leaves the claim to its lease, as a crash would.
 */
export function outcomeOfThrown(error: unknown, signal: AbortSignal): StepOutcome {
  if (signal.aborted) throw error;
  if (error instanceof UserError || error instanceof NonRetriableError) return { kind: 'failed', message: error.message };
  return { kind: 'ambiguous', message: `The step stopped with an unexpected error (${errorMessage(error)}); it is not known whether the receiver acted.` };
}
