import { describe, expect, it } from 'vitest';
import { attemptSpans, currentAttemptDuration } from '../../core/attempt-spans.ts';
import { conditionOutcome } from './condition-words.ts';
import { expiredWarning, stepReason, stepTitle, withoutAction } from './PreviewSummary.tsx';
import { formatDay, readableMessage, triggerWords } from './run-words.ts';
import type { TimelineEntry } from './run-types.ts';
import { describeEvent, effectPhrase, sentenceText, type SentenceContext } from './timeline-sentences.ts';

const steps: Record<string, { label: string; type: string }> = {
  invoice: { label: 'Create invoice', type: 'http.request' },
  receipt: { label: 'Email the receipt', type: 'email.send' },
  shop: { label: 'Order paid', type: 'trigger.webhook' },
  big: { label: 'Big order?', type: 'condition' },
  bill: { label: 'Bill the order', type: 'flow.run' },
};
const context: SentenceContext = { runId: 'run_this', step: (id) => steps[id], numbers: new Map([['run_first', 12]]) };

function event(type: TimelineEntry['type'], nodeId: string | null, data: Record<string, unknown> | null, attempt = 1): TimelineEntry {
  return { id: 1, runId: 'run_this', type, nodeId, attempt, data, createdAt: Date.UTC(2025, 0, 2, 14, 2, 3) };
}

const say = (entry: TimelineEntry) => sentenceText(describeEvent(entry, context));

describe('timeline sentences', () => {
  it('a stopped duplicate names the key, the run that did the work and what did not happen', () => {
    const text = say(event('step.duplicate', 'invoice', { key: '4417:invoice', scope: 'f:invoice', runId: 'run_first', doneAt: Date.UTC(2025, 0, 2, 14, 2) }));
    expect(text).toMatch(/^Duplicate stopped — Key 4417:invoice was already done by run #12 at .+; its result was reused, no second invoice was created\.$/);
    expect(say(event('step.duplicate', 'receipt', { key: 'k', runId: 'run_this' }))).toContain('already done by this run; its result was reused, no second email was sent.');
  });

  it('an expired key says when it expired, who had done the work, and that the step acts again', () => {
    const expiredAt = new Date(2025, 11, 30, 12).getTime();
    const doneAt = new Date(2025, 10, 30, 12).getTime();
    const now = new Date(2025, 11, 31, 12).getTime();
    const text = say(event('step.key_expired', 'invoice', { key: '4417:invoice', scope: 'f:invoice', expiredAt, doneAt, runId: 'run_first' }));
    expect(text).toContain(`Key expired: acts again — Key 4417:invoice expired on ${formatDay(expiredAt)}; this will act again.`);
    expect(text).toMatch(/this will act again\. It was done by run #12 on .+; keys are kept only for their time to live\.$/);
    // A claim replaced before any sweep reached it: only that it had expired is known.
    expect(say(event('step.key_expired', 'invoice', { key: '4417:invoice', scope: 'f:invoice' }))).toBe('Key expired: acts again — Key 4417:invoice had expired; this will act again.');
    expect(stepTitle({ action: 'act', sideEffect: true, ranBefore: false, reason: 'Acts again: key 4417:invoice expired on 30 Dec; this will act again.', expired: { key: '4417:invoice', expiredAt, doneAt, runId: 'run_first', runSeq: 12, doneBy: 'run #12' } }))
      .toEqual({ title: 'Acts again — its key expired', tone: 'warn' });
    expect(withoutAction('Acts again: key 4417:invoice expired on 30 Dec; this will act again.')).toBe('Key 4417:invoice expired on 30 Dec; this will act again.');
    expect(formatDay(new Date(2025, 11, 30, 12).getTime(), new Date(2026, 0, 2).getTime())).toMatch(/2025/);
    expect(formatDay(expiredAt, now)).not.toMatch(/2025/);    expect(expiredWarning(1)).toBe('One side-effect step meets a key that has expired: the work was done before, long enough ago that its key was forgotten, so it will be done again.');
    expect(expiredWarning(12)).toMatch(/^12 side-effect steps meet keys that have expired: /);
  });

  it('words the days of an expired key and of a Skip in the reader\'s zone, from the moments beside the server\'s UTC words', () => {
    const expiredAt = Date.UTC(2025, 11, 30, 23, 30);
    const doneAt = Date.UTC(2025, 10, 30, 23, 30);
    const expired = { key: '4417:invoice', expiredAt, doneAt, runId: 'run_first', runSeq: 12, doneBy: 'run #12' };
    const reason = 'Acts again: key 4417:invoice expired on 30 Dec UTC; this will act again (it was done by run #12 on 30 Nov UTC).';
    expect(stepReason({ reason, expired })).toBe(`Key 4417:invoice expired on ${formatDay(expiredAt)}; this will act again (it was done by run #12 on ${formatDay(doneAt)}).`);
    expect(stepReason({ reason, expired })).not.toContain('UTC');
    const skipped = { runSeq: 12, at: Date.UTC(2025, 10, 30, 23, 30) };
    expect(stepReason({ reason: 'Waits for your decision: Run #12 skipped this on 30 Nov UTC; it is not known whether it happened.', skipped }))
      .toBe(`Run #12 skipped this on ${formatDay(skipped.at)}; it is not known whether it happened.`);
    expect(stepReason({ reason: 'Skipped: it succeeded in this run.' })).toBe('It succeeded in this run.');

    // The timeline's step that stopped on a skipped key words the Skip the same way.
    const message = 'Run #12 skipped this on 30 Nov UTC; it is not known whether it happened. It will not be done on a guess: choose what to do.';
    const uncertain = say(event('step.uncertain', 'invoice', { key: '4417:invoice', message, skippedBy: { decision: 'skip', runId: 'run_first', runSeq: 12, by: 'alice', at: new Date(skipped.at).toISOString() } }));
    expect(uncertain).toBe(`Outcome unknown — Run #12 skipped this on ${formatDay(skipped.at)}; it is not known whether it happened. It will not be done on a guess: choose what to do. Choose what happened.`);
    expect(say(event('step.uncertain', 'invoice', { key: '4417:invoice', message }))).toContain('on 30 Nov UTC');
  });

  it('a Run flow step says which child it waits for, and that a repeat started no second child', () => {
    expect(say(event('step.waiting', 'bill', { childRunId: 'run_child', message: 'Child run #7 of Invoice needs review: unknown. This step waits until it is decided there.' })))
      .toBe('Waiting for a child run — “Bill the order”: Child run #7 of Invoice needs review: unknown. This step waits until it is decided there.');
    expect(say(event('step.duplicate', 'bill', { key: '4417:child', runId: 'run_first' }))).toContain('no second child run was started');
    expect(say(event('run.queued', null, { trigger: 'flow' }))).toBe('Queued — Started by a Run flow step of another run; waiting for a worker to pick it up.');
  });

  it('keeps the key apart from the words, to be shown as code', () => {
    expect(describeEvent(event('step.duplicate', 'invoice', { key: '4417:invoice', runId: 'run_first' }), context).parts[1]).toEqual({ code: '4417:invoice' });
  });

  it('a rerun started by a recovery names it', () => {
    expect(say(event('run.rerun', null, { by: 'ops', bulk: true, operation: 'Mail server outage 30 Nov', version: 1 }, 2)))
      .toContain('ops started attempt 2 in the recovery “Mail server outage 30 Nov”. Steps that already finished are skipped');
  });

  it('explains each reason for a skip', () => {
    expect(say(event('step.skipped', 'invoice', { reason: 'checkpoint', attempt: 1, status: 'succeeded' }, 2))).toBe('Skipped — This step already finished in attempt 1; its result was reused.');
    expect(say(event('step.skipped', 'invoice', { reason: 'branch' }))).toBe('Skipped — This step is on a path the run did not take.');
    expect(say(event('step.skipped', 'invoice', { reason: 'stale' }))).toContain('older than what was already recorded');
  });

  it('says which automatic rerun is coming and which one started, on which version', () => {
    const at = Date.now() + 10 * 60_000;
    expect(say(event('run.rerun_scheduled', null, { at, number: 2, of: 3 }))).toMatch(/^Will try again — The flow says to try a failed run again: automatic rerun 2 of 3 starts .+, from the steps already done\.$/);
    expect(say(event('run.rerun', null, { by: 'automatic', automatic: { number: 2, of: 3 }, version: 4 }, 3))).toMatch(/^Automatic rerun 2 of 3, on v4 — The flow’s setting/);
    expect(say(event('run.rerun', null, { by: 'automatic', automatic: { number: 1, of: 1 }, version: 5, fromVersion: 4 }, 2))).toMatch(/^Automatic rerun 1 of 1, on v5 \(was v4\) — /);
  });

  it('asks a person to decide an unknown outcome', () => {
    const text = say(event('step.uncertain', 'receipt', { key: 'k', message: 'The mail server did not answer after the email was sent.' }));
    expect(text).toBe('Outcome unknown — The mail server did not answer after the email was sent. Choose what happened.');
  });

  it('counts repeated deliveries from the first one', () => {
    expect(say(event('webhook.duplicate', 'shop', { eventId: 'evt_91', repeat: 3 }))).toBe(
      'Delivery repeated — The sender sent event evt_91 again (3rd time); it was ignored and started nothing new.',
    );
    // Past the listed repeats, the latest one says how many came between.
    expect(say(event('webhook.duplicate', 'shop', { eventId: 'evt_91', repeat: 60, notListed: 8 }))).toBe(
      'Delivery repeated — The sender sent event evt_91 again (60th time); it was ignored and started nothing new. 8 repeats before it were counted but not listed.',
    );
  });

  it('reads a retry with its delay and a decision with who made it', () => {
    expect(say(event('step.retry_scheduled', 'invoice', { message: 'The receiver did not answer.', retry: 2, delayMs: 400 }))).toBe(
      'Trying again — The receiver did not answer. Trying again in 400 ms (retry 2).',
    );
    expect(say(event('step.resolved', 'receipt', { decision: 'happened', by: 'admin' }))).toBe(
      'Decision recorded — admin said it happened; it is recorded as done and nothing is sent again.',
    );
  });
});

describe('which way a condition went', () => {
  const sentence = (output: unknown) => conditionOutcome(output)?.sentence;

  it('says the comparison in words and the exit it took, for every operator', () => {
    expect(sentence({ result: true, branch: 'true', left: '50', op: 'gt', right: 30 })).toBe('50 is more than 30 → Yes');
    expect(sentence({ result: false, branch: 'false', left: 20, op: 'gt', right: 30 })).toBe('20 is not more than 30 → No');
    expect(sentence({ result: true, branch: 'true', left: 5, op: 'lt', right: '10' })).toBe('5 is less than 10 → Yes');
    expect(sentence({ result: false, branch: 'false', left: 50, op: 'lt', right: 10 })).toBe('50 is not less than 10 → No');
    expect(sentence({ result: true, branch: 'true', left: 'paid', op: 'equals', right: 'paid' })).toBe('“paid” equals “paid” → Yes');
    expect(sentence({ result: false, branch: 'false', left: 'open', op: 'equals', right: 'paid' })).toBe('“open” does not equal “paid” → No');
    expect(sentence({ result: true, branch: 'true', left: 'open', op: 'not_equals', right: 'paid' })).toBe('“open” does not equal “paid” → Yes');
    expect(sentence({ result: false, branch: 'false', left: 'paid', op: 'not_equals', right: 'paid' })).toBe('“paid” equals “paid” → No');
    expect(sentence({ result: true, branch: 'true', left: 'rush order', op: 'contains', right: 'rush' })).toBe('“rush order” contains “rush” → Yes');
    expect(sentence({ result: false, branch: 'false', left: ['a', 'b'], op: 'contains', right: 'c' })).toBe('["a","b"] does not contain “c” → No');
    expect(sentence({ result: true, branch: 'true', left: 'ada@example.com', op: 'exists', right: null })).toBe('A value is there (“ada@example.com”) → Yes');
    expect(sentence({ result: false, branch: 'false', op: 'exists', right: null })).toBe('No value is there → No');
  });

  it('reads the exit from the result when an older output has no branch, and ignores other outputs', () => {
    expect(sentence({ result: true, left: 3, op: 'gt', right: 1 })).toBe('3 is more than 1 → Yes');
    expect(conditionOutcome({ status: 200 })).toBeNull();
    expect(conditionOutcome(null)).toBeNull();
  });

  it('the timeline says which way the condition went instead of only "finished"', () => {
    const text = say(event('step.succeeded', 'big', { output: { result: true, branch: 'true', left: '50', op: 'gt', right: 30 } }));
    expect(text).toBe('Condition checked — “Big order?”: 50 is more than 30 → Yes.');
    expect(text).not.toContain('finished');
  });
});

describe('a test run answered by a stand-in', () => {
  it('says the stand-in did it and nothing real was touched', () => {
    const text = say(event('step.succeeded', 'big', { key: '4417:invoice', output: { status: 200, body: { id: 'ch_1' }, standIn: 'payments' } }));
    expect(text).toBe('Done by a stand-in — “Big order?” went to the payments stand-in (it honours keys) instead of the real service: nothing real was touched. Its test key 4417:invoice is recorded as done for this test.');
  });

  it('says a test did not wait out a delay, and until when a live run would', () => {
    expect(say(event('step.succeeded', 'big', { output: { skippedInTest: true, wouldWaitUntil: '2026-12-03T10:00:00.000Z', waitedUntil: '2026-12-01T10:00:00.000Z' } })))
      .toBe('Not waited in a test — “Big order?” did not wait: a test goes on at once. A live run would wait until 2026-12-03T10:00:00.000Z.');
  });

  it('reads an ordinary answer that happens to have a standIn field of another value as an ordinary success', () => {
    expect(say(event('step.succeeded', 'big', { output: { standIn: 'bank' } }))).toBe('Done — “Big order?” finished.');
  });
});

describe('words that match what happened', () => {
  it('a step recorded as done by a decision is not said to have finished', () => {
    const decided: SentenceContext = { ...context, decision: (nodeId) => (nodeId === 'receipt' ? 'happened' : nodeId === 'invoice' ? 'skip' : undefined) };
    const happened = sentenceText(describeEvent(event('step.skipped', 'receipt', { reason: 'checkpoint', attempt: 1, status: 'succeeded' }, 2), decided));
    expect(happened).toBe('Skipped — Recorded as done by your decision that it happened; it is not done again.');
    expect(happened).not.toContain('finished');
    const skipped = sentenceText(describeEvent(event('step.skipped', 'invoice', { reason: 'checkpoint', attempt: 1, status: 'skipped' }, 2), decided));
    expect(skipped).toBe('Skipped — Skipped by your decision; the run goes on without it.');
  });

  it('the rerun preview says "runs for the first time" for a step that never began, and "acts again" only for one that did', () => {
    const acting = { action: 'act' as const, sideEffect: true, reason: 'Runs for the first time: nothing was done yet with key k.' };
    expect(stepTitle({ ...acting, ranBefore: false })).toEqual({ title: 'Runs for the first time', tone: 'info' });
    expect(stepTitle({ ...acting, ranBefore: true })).toEqual({ title: 'Acts again', tone: 'act' });
    expect(stepTitle({ ...acting, sideEffect: false, ranBefore: true })).toEqual({ title: 'Runs again', tone: 'info' });
    expect(stepTitle({ ...acting, ranBefore: false, reason: 'Cannot run, so the rerun stops here: no URL.' }).title).toBe('Cannot run');
    expect(withoutAction(acting.reason)).toBe('Nothing was done yet with key k.');
    expect(withoutAction('Acts again: nothing was done yet.')).toBe('Nothing was done yet.');
  });

  it('times each attempt on its own, without the wait before a rerun', () => {
    const at = (minute: number, second: number) => Date.UTC(2025, 0, 2, 14, minute, second);
    const spans = attemptSpans([
      { type: 'run.queued', attempt: 1, createdAt: at(0, 0) },
      { type: 'run.started', attempt: 1, createdAt: at(0, 1) },
      { type: 'run.failed', attempt: 1, createdAt: at(0, 3) },
      { type: 'run.rerun', attempt: 2, createdAt: at(1, 10) },
      { type: 'run.started', attempt: 2, createdAt: at(1, 11) },
      { type: 'run.succeeded', attempt: 2, createdAt: at(1, 12) },
      { type: 'run.rerun', attempt: 3, createdAt: at(2, 0) },
      { type: 'run.started', attempt: 3, createdAt: at(2, 1) },
    ], { attempt: 3, startedAt: at(0, 1), finishedAt: null });
    expect(spans).toEqual([
      { attempt: 1, startedAt: at(0, 1), finishedAt: at(0, 3) },
      { attempt: 2, startedAt: at(1, 11), finishedAt: at(1, 12) },
      { attempt: 3, startedAt: at(2, 1), finishedAt: null },
    ]);
  });

  it('takes the first start and the current end from the run\'s row, so the runs list and the run page give one figure', () => {
    // The worker took the run at 1000 and wrote its end at 1250; its events were stamped a few ms after and before.
    const events = [
      { type: 'run.queued', attempt: 1, createdAt: 990 },
      { type: 'run.started', attempt: 1, createdAt: 1004 },
      { type: 'run.succeeded', attempt: 1, createdAt: 1249 },
    ];
    const row = { attempt: 1, startedAt: 1000, finishedAt: 1250 };
    expect(attemptSpans(events, row)).toEqual([{ attempt: 1, startedAt: 1000, finishedAt: 1250 }]);
    expect(currentAttemptDuration(row, undefined)).toBe(250);

    // A rerun: its start is its own first run.started, its end the row's; the first attempt keeps its events' end.
    const rerun = [...events, { type: 'run.rerun', attempt: 2, createdAt: 5000 }, { type: 'run.started', attempt: 2, createdAt: 5010 }, { type: 'run.started', attempt: 2, createdAt: 5100 }, { type: 'run.succeeded', attempt: 2, createdAt: 5299 }];
    const rerunRow = { attempt: 2, startedAt: 1000, finishedAt: 5300 };
    const spans = attemptSpans(rerun, rerunRow);
    expect(spans).toEqual([{ attempt: 1, startedAt: 1000, finishedAt: 1249 }, { attempt: 2, startedAt: 5010, finishedAt: 5300 }]);
    expect(currentAttemptDuration(rerunRow, 5010)).toBe(spans[1]!.finishedAt! - spans[1]!.startedAt);
  });
});

describe('words', () => {
  it('says what a repeat would have done, from the kind and label of the step', () => {
    expect(effectPhrase('http.request', 'Create invoice')).toBe('no second invoice was created');
    expect(effectPhrase('http.request', 'Charge the card')).toBe('nothing was charged twice');
    expect(effectPhrase('message.post', 'Tell the team')).toBe('no second message was posted');
    expect(effectPhrase('http.request', 'Sync CRM')).toBe('nothing was sent again');
  });

  it('describes how a run began', () => {
    const run = { triggerKind: 'webhook', eventId: 'evt_1', replayOf: null, attempt: 1 };
    expect(triggerWords(run)).toBe('Webhook event evt_1');
    expect(triggerWords({ ...run, attempt: 3 })).toBe('Webhook event evt_1 · rerun, attempt 3');
    expect(triggerWords({ ...run, replayOf: 'run_first' }, new Map([['run_first', 12]]))).toBe('Replay of run #12');
    expect(triggerWords({ triggerKind: 'manual', eventId: null, replayOf: null, attempt: 1 })).toBe('Started by hand');
  });

  it('takes the message out of a JSON error body', () => {
    expect(readableMessage('The receiver failed (500): {"error":{"type":"x","message":"No invoice was created."}}')).toBe('The receiver failed (500): No invoice was created.');
    expect(readableMessage('Plain words: {not json}')).toBe('Plain words: {not json}');
  });
});
