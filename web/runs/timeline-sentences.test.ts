import { describe, expect, it } from 'vitest';
import { readableMessage, triggerWords } from './run-words.ts';
import type { TimelineEntry } from './run-types.ts';
import { describeEvent, effectPhrase, sentenceText, type SentenceContext } from './timeline-sentences.ts';

const steps: Record<string, { label: string; type: string }> = {
  invoice: { label: 'Create invoice', type: 'http.request' },
  receipt: { label: 'Email the receipt', type: 'email.send' },
  shop: { label: 'Order paid', type: 'trigger.webhook' },
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

  it('keeps the key apart from the words, to be shown as code', () => {
    expect(describeEvent(event('step.duplicate', 'invoice', { key: '4417:invoice', runId: 'run_first' }), context).parts[1]).toEqual({ code: '4417:invoice' });
  });

  it('explains each reason for a skip', () => {
    expect(say(event('step.skipped', 'invoice', { reason: 'checkpoint', attempt: 1, status: 'succeeded' }, 2))).toBe('Skipped — This step already finished in attempt 1; its result was reused.');
    expect(say(event('step.skipped', 'invoice', { reason: 'branch' }))).toBe('Skipped — This step is on a path the run did not take.');
    expect(say(event('step.skipped', 'invoice', { reason: 'stale' }))).toContain('older than what was already recorded');
  });

  it('asks a person to decide an unknown outcome', () => {
    const text = say(event('step.uncertain', 'receipt', { key: 'k', message: 'The mail server did not answer after the email was sent.' }));
    expect(text).toBe('Outcome unknown — The mail server did not answer after the email was sent. Choose what happened.');
  });

  it('counts repeated deliveries from the first one', () => {
    expect(say(event('webhook.duplicate', 'shop', { eventId: 'evt_91', repeat: 3 }))).toBe(
      'Delivery repeated — The sender sent event evt_91 again (3rd time); it was ignored and started nothing new.',
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
