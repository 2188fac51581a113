/**
 * The one decision after every step outcome, as a table: the same outcome leads to
 * different actions depending on whether the step acts outside, the receiver honours the
 * key, what the person chose for unknown outcomes, and how many tries are left.
 */
import { describe, expect, it } from 'vitest';
import type { TypedStep } from './flow/planned-step.ts';
import { decideOutcome, outcomeOfThrown, retryDelay, retryPolicy, SIDE_EFFECT_CANNOT_WAIT, type OutcomeContext, type RetryPolicy } from './outcomes.ts';
import { NonRetriableError, UserError } from './errors.ts';
import type { StepOutcome } from './steps/types.ts';

const policy: RetryPolicy = { max: 2, backoff: 'exponential', delayMs: 100, maxDelayMs: 1_000 };

const plain: Omit<OutcomeContext, 'attempt'> = { policy, sideEffect: false, honoursKey: false, onUncertain: 'review' };
const honouring: Omit<OutcomeContext, 'attempt'> = { policy, sideEffect: true, honoursKey: true, onUncertain: 'review' };
const reviewing: Omit<OutcomeContext, 'attempt'> = { policy, sideEffect: true, honoursKey: false, onUncertain: 'review' };
const accepting: Omit<OutcomeContext, 'attempt'> = { policy, sideEffect: true, honoursKey: false, onUncertain: 'retry' };

const notDone: StepOutcome = { kind: 'not_done', message: 'nothing was sent', response: { status: 429 } };
const hinted: StepOutcome = { kind: 'not_done', message: 'later', retryAfterMs: 700 };
const refused: StepOutcome = { kind: 'failed', message: 'refused', response: { status: 422 } };
const ambiguous: StepOutcome = { kind: 'ambiguous', message: 'no answer', response: { status: 502 } };
const waiting: StepOutcome = { kind: 'wait', until: 5_000, output: { until: 5_000 }, message: 'Waiting.' };
const succeeded: StepOutcome = { kind: 'succeeded', output: { id: 'obj_1' } };

type Expected = ReturnType<typeof decideOutcome>['action'];

const table: Array<[string, StepOutcome, Omit<OutcomeContext, 'attempt'>, number, Expected, number?]> = [
  // name, outcome, context, attempt, action, delay
  ['success is recorded (plain)', succeeded, plain, 1, 'record'],
  ['success is recorded (side effect)', succeeded, reviewing, 3, 'record'],
  ['a plain wait parks the run', waiting, plain, 1, 'park'],
  ['a side effect cannot wait', waiting, honouring, 1, 'fail'],
  ['not done is retried (plain)', notDone, plain, 1, 'retry', 100],
  ['not done is retried (side effect, any receiver)', notDone, reviewing, 2, 'retry', 200],
  ['not done fails once tries are used up', notDone, reviewing, 3, 'fail'],
  ['a "retry after" hint lengthens the delay', hinted, honouring, 1, 'retry', 700],
  ['refused fails at once (plain)', refused, plain, 1, 'fail'],
  ['refused fails at once (side effect)', refused, honouring, 1, 'fail'],
  ['ambiguous is retried when the step acts on nothing outside', ambiguous, plain, 2, 'retry', 200],
  ['ambiguous fails a plain step once tries are used up', ambiguous, plain, 3, 'fail'],
  ['ambiguous is retried when the receiver honours the key', ambiguous, honouring, 1, 'retry', 100],
  ['ambiguous fails an honoured key once tries are used up', ambiguous, honouring, 3, 'fail'],
  ['ambiguous stops for review when the receiver does not honour the key', ambiguous, reviewing, 1, 'review'],
  ['ambiguous stops for review even with tries left', ambiguous, reviewing, 2, 'review'],
  ['ambiguous is retried when the person accepted at-least-once', ambiguous, accepting, 1, 'retry', 100],
  ['ambiguous fails at-least-once steps once tries are used up', ambiguous, accepting, 3, 'fail'],
];

describe('decideOutcome', () => {
  it.each(table)('%s', (_name, outcome, context, attempt, action, delayMs) => {
    const decision = decideOutcome(outcome, { ...context, attempt });
    expect(decision.action).toBe(action);
    if (decision.action === 'retry') expect(decision.delayMs).toBe(delayMs);
  });

  it('keeps the receiver\'s message and answer when it fails or stops for review', () => {
    expect(decideOutcome(refused, { ...honouring, attempt: 1 })).toEqual({ action: 'fail', message: 'refused', response: { status: 422 } });
    expect(decideOutcome(ambiguous, { ...reviewing, attempt: 1 })).toEqual({ action: 'review', message: 'no answer', response: { status: 502 } });
    expect(decideOutcome(waiting, { ...honouring, attempt: 1 })).toEqual({ action: 'fail', message: SIDE_EFFECT_CANNOT_WAIT });
  });

  it('never retries with no tries allowed', () => {
    const once = { ...plain, policy: { ...policy, max: 0 } };
    expect(decideOutcome(notDone, { ...once, attempt: 1 }).action).toBe('fail');
    expect(decideOutcome(ambiguous, { ...once, attempt: 1 }).action).toBe('fail');
  });
});

describe('retry pace', () => {
  const step = (retry?: object) => ({ id: 's', type: 'transform', label: 's', sideEffect: false, data: { outputs: { a: 'b' }, ...(retry ? { retry } : {}) } }) as TypedStep;

  it('defaults to three tries, exponential from the engine\'s base delay', () => {
    expect(retryPolicy(step(), { retryBaseMs: 200, retryMaxDelayMs: 5_000 })).toEqual({ max: 3, backoff: 'exponential', delayMs: 200, maxDelayMs: 5_000 });
  });

  it('takes the step\'s own setting', () => {
    expect(retryPolicy(step({ max: 0, backoff: 'fixed', delayMs: 50 }), { retryBaseMs: 200, retryMaxDelayMs: 5_000 })).toEqual({ max: 0, backoff: 'fixed', delayMs: 50, maxDelayMs: 5_000 });
  });

  it('doubles, holds when fixed, and never passes the longest delay', () => {
    expect([1, 2, 3, 4, 5].map((retry) => retryDelay(policy, retry))).toEqual([100, 200, 400, 800, 1_000]);
    expect([1, 2, 3].map((retry) => retryDelay({ ...policy, backoff: 'fixed' }, retry))).toEqual([100, 100, 100]);
    expect(retryDelay(policy, 1, 60_000)).toBe(1_000);
  });
});

describe('outcomeOfThrown', () => {
  const running = new AbortController().signal;

  it('reads a refusal raised before sending as failed, so the key may act again', () => {
    expect(outcomeOfThrown(new UserError('bad input'), running)).toEqual({ kind: 'failed', message: 'bad input' });
    expect(outcomeOfThrown(new NonRetriableError('address refused'), running)).toEqual({ kind: 'failed', message: 'address refused' });
  });

  it('reads anything else as ambiguous: the request may have left', () => {
    const outcome = outcomeOfThrown(new Error('socket hang up'), running);
    expect(outcome.kind).toBe('ambiguous');
    expect(outcome.kind === 'ambiguous' && outcome.message).toContain('socket hang up');
  });

  it('leaves the claim to its lease when the worker was interrupted', () => {
    const stopped = new AbortController();
    stopped.abort();
    const error = new Error('aborted');
    expect(() => outcomeOfThrown(error, stopped.signal)).toThrow(error);
  });
});
