/**
 * Every timeline event as a sentence someone who is not a programmer understands: a short
 * title ("Duplicate stopped"), what happened and what it means, an icon and a tone. Keys
 * are kept apart from the words so the view can set them in code type.
 */
import { conditionOutcome } from './condition-words.ts';
import { skippedKeyMessage } from '../../core/review-words.ts';
import { formatDay, formatDuration, formatShortTime, formatWhen, ordinal, plural, readableMessage, runRef } from './run-words.ts';
import type { TimelineEntry } from './run-types.ts';

// A test run's side effect is answered by a built-in stand-in (server/engine/test-mode/stand-ins.ts).
const STAND_IN_WORDS = {
  payments: 'the payments stand-in (it honours keys)',
  http: 'the HTTP stand-in',
  email: 'the mail stand-in',
  chat: 'the chat stand-in',
} as const;

/** A Skip record kept in an event (server/engine/review-decisions.ts), if the data holds one. */
function skipOf(value: unknown): { runSeq: number; at: number } | undefined {
  const record = value as { runSeq?: unknown; at?: unknown } | null | undefined;
  const at = typeof record?.at === 'string' ? Date.parse(record.at) : Number.NaN;
  return typeof record?.runSeq === 'number' && Number.isFinite(at) ? { runSeq: record.runSeq, at } : undefined;
}

function standInOf(output: unknown): keyof typeof STAND_IN_WORDS | null {
  const name = (output as { standIn?: unknown } | null)?.standIn;
  return typeof name === 'string' && name in STAND_IN_WORDS ? (name as keyof typeof STAND_IN_WORDS) : null;
}

export type Tone = 'ok' | 'dedupe' | 'skip' | 'warn' | 'bad' | 'info' | 'wait';
export type IconName = 'check' | 'shield' | 'skip' | 'question' | 'cross' | 'clock' | 'play' | 'repeat' | 'inbox' | 'copy' | 'alert' | 'flag' | 'recover' | 'queue' | 'stop' | 'retry';
/** Plain words, or a key shown as code. */
export type Part = string | { code: string };

export interface Sentence {
  title: string;
  parts: Part[];
  tone: Tone;
  icon: IconName;
}

export interface SentenceContext {
  /** The run whose timeline this is, so "done by this run" can be told apart from another run. */
  runId: string;
  step(nodeId: string): { label: string; type: string } | undefined;
  /** Run numbers by id, for "run #12"; unknown ids are shown shortened. */
  numbers: ReadonlyMap<string, number>;
  /** The decision a person recorded on a step of this run (`happened`, `skip` …), if any. */
  decision?(nodeId: string): string | undefined;
}

/** Which events a filter keeps: what Onceflow prevented, and what went wrong. */
export type EventGroup = 'prevented' | 'problem' | 'other';

export function eventGroup(type: string): EventGroup {
  if (type === 'step.duplicate' || type === 'step.skipped' || type === 'webhook.duplicate') return 'prevented';
  if (['step.failed', 'step.key_conflict', 'step.uncertain', 'step.retry_scheduled', 'run.failed', 'run.needs_review', 'webhook.rejected'].includes(type)) return 'problem';
  return 'other';
}

/** What a repeat of this step would have done, said as what did not happen. */
export function effectPhrase(type: string | undefined, label: string | undefined): string {
  if (type === 'email.send') return 'no second email was sent';
  if (type === 'message.post') return 'no second message was posted';
  if (type === 'flow.run') return 'no second child run was started';
  const made = /^(?:create|add|make|open|issue|book|register)\s+(?:an?\s+|the\s+)?(.+)$/i.exec(label?.trim() ?? '');
  if (made) return `no second ${made[1]!.toLowerCase()} was created`;
  if (/^charge\b/i.test(label ?? '')) return 'nothing was charged twice';
  return 'nothing was sent again';
}

export function sentenceText(sentence: Sentence): string {
  return `${sentence.title} — ${sentence.parts.map((part) => (typeof part === 'string' ? part : part.code)).join('')}`;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function when(value: unknown): string | undefined {
  const at = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : formatWhen(at);
}

/** What a cancel found, and later how the step that was acting ended (see server/engine/run-cancel.ts). */
function cancelSentence(data: Record<string, unknown>, by: string, labelOf: (nodeId: string) => string): Sentence {
  const acting = Array.isArray(data.acting) ? data.acting.filter((id): id is string => typeof id === 'string').map((id) => `“${labelOf(id)}”`) : [];
  const notRun = number(data.notRun);
  const finished = text(data.finished);
  const steps = (count: number) => `${count} ${count === 1 ? 'step' : 'steps'}`;
  const parentSeq = number(data.parentSeq);
  if (parentSeq !== undefined) return { title: 'Cancelled', parts: [childCancelWords(parentSeq, by, acting, notRun, finished)], tone: 'bad', icon: 'stop' };
  if (acting.length === 0) {
    const rest = notRun === undefined ? ' nothing more will happen in it.' : notRun === 0 ? ' every step had already run.' : ` ${steps(notRun)} did not run.`;
    return { title: 'Cancelled', parts: [`Cancelled by ${by};${rest}`], tone: 'bad', icon: 'stop' };
  }
  const names = acting.join(' and ');
  const was = acting.length === 1 ? 'was' : 'were';
  if (finished === undefined) {
    const after = notRun ? ` ${steps(notRun)} will not run.` : '';
    return { title: 'Cancelled', parts: [`Cancelled by ${by} while ${names} ${was} acting; it finishes and is recorded, and nothing after it starts.${after}`], tone: 'bad', icon: 'stop' };
  }
  const rest = notRun === undefined || notRun === 0 ? '' : ` ${steps(notRun)} did not run.`;
  if (finished === 'not_sent') {
    return { title: 'Cancelled', parts: [`Cancelled by ${by}; ${names} ${was} about to act and ${acting.length === 1 ? 'was' : 'were'} stopped before sending anything.${rest}`], tone: 'bad', icon: 'stop' };
  }
  return { title: 'Cancelled', parts: [`Cancelled by ${by} while ${names} ${was} acting; ${actingEnding(finished)}${rest}`], tone: 'bad', icon: 'stop' };
}

function actingEnding(finished: string): string {
  return finished === 'succeeded' ? 'it finished and was recorded.'
    : finished === 'failed' ? 'it did not go through and was recorded as failed.'
    : finished === 'uncertain' ? 'whether it happened is unknown, so a later run with the same key will ask a person first.'
    : 'it ended and was recorded.';
}

/** A child run cancelled with the run that started it: why first, then what had happened. */
function childCancelWords(parentSeq: number, by: string, acting: readonly string[], notRun: number | undefined, finished: string | undefined): string {
  const why = `Cancelled because run #${parentSeq} that started it was cancelled (by ${by}).`;
  const steps = (count: number) => `${count} ${count === 1 ? 'step' : 'steps'}`;
  const names = acting.join(' and ');
  const was = acting.length === 1 ? 'was' : 'were';
  const future = finished === undefined && acting.length > 0;
  const rest = notRun === undefined ? '' : notRun === 0 ? (future ? '' : ' Every step had already run.') : ` ${steps(notRun)} ${future ? 'will not run' : 'did not run'}.`;
  if (acting.length === 0) return `${why}${rest}`;
  if (finished === undefined) return `${why} ${names} ${was} acting; it finishes and is recorded, and nothing after it starts.${rest}`;
  if (finished === 'not_sent') return `${why} ${names} ${was} about to act and ${was} stopped before sending anything.${rest}`;
  return `${why} ${names} ${was} acting; ${actingEnding(finished)}${rest}`;
}

export function describeEvent(event: TimelineEntry, context: SentenceContext): Sentence {
  const data = event.data ?? {};
  const step = event.nodeId ? context.step(event.nodeId) : undefined;
  const label = step?.label ?? event.nodeId ?? 'The step';
  const key = text(data.key);
  const who = (runId: unknown) => (typeof runId !== 'string' ? 'an earlier run' : runId === context.runId ? 'this run' : runRef(runId, context.numbers));
  const by = text(data.by) ?? 'Someone';
  const message = text(data.message);

  switch (event.type) {
    case 'step.duplicate': {
      const doneAt = number(data.doneAt);
      return {
        title: 'Duplicate stopped',
        parts: [
          'Key ', { code: key ?? '?' },
          ` was already done by ${who(data.runId)}${doneAt === undefined ? '' : ` at ${formatShortTime(doneAt)}`}; its result was reused, ${effectPhrase(step?.type, step?.label)}.`,
        ],
        tone: 'dedupe',
        icon: 'shield',
      };
    }
    case 'step.skipped':
      return { title: 'Skipped', parts: [skipReason(data, event.nodeId ? context.decision?.(event.nodeId) : undefined)], tone: 'skip', icon: 'skip' };
    case 'step.uncertain': {
      // An earlier run's Skip is worded here, its day in the reader's zone; the message names UTC.
      const skipped = skipOf(data.skippedBy);
      const said = skipped ? skippedKeyMessage(skipped.runSeq, formatDay(skipped.at)) : message;
      return {
        title: 'Outcome unknown',
        parts: [`${said ?? 'The receiver did not answer after the request was sent, so it may or may not have acted.'} Choose what happened.`],
        tone: 'warn',
        icon: 'question',
      };
    }
    case 'webhook.duplicate': {
      // `repeat` counts deliveries of the event, the first one included: 2 is the first repeat.
      const delivery = Math.max(number(data.repeat) ?? 2, 2);
      // The first repeats are listed one by one; those between them and the latest are only counted.
      const notListed = number(data.notListed) ?? 0;
      const between = notListed > 0 ? ` ${plural(notListed, 'repeat', 'repeats')} before it ${notListed === 1 ? 'was' : 'were'} counted but not listed.` : '';
      return {
        title: 'Delivery repeated',
        parts: [`The sender sent event ${text(data.eventId) ?? ''} again (${ordinal(delivery)} time); it was ignored and started nothing new.${between}`],
        tone: 'dedupe',
        icon: 'copy',
      };
    }
    case 'webhook.received':
      return { title: 'Delivery received', parts: [`Event ${text(data.eventId) ?? ''} arrived and started this run.`], tone: 'info', icon: 'inbox' };
    case 'webhook.rejected':
      return { title: 'Delivery refused', parts: [text(data.reason) ?? 'The delivery could not be accepted.'], tone: 'bad', icon: 'cross' };
    case 'run.queued': {
      const replayOf = text(data.replayOf);
      const eventId = text(data.eventId);
      const words = replayOf
        ? `A replay of ${who(replayOf)} with the same input. Work that was already done will show up as duplicates stopped.`
        : data.trigger === 'webhook' ? `Event ${eventId ?? ''} is waiting for a worker to pick it up.`
        : data.trigger === 'schedule' ? 'The schedule fired; waiting for a worker to pick it up.'
        : data.trigger === 'flow' ? 'Started by a Run flow step of another run; waiting for a worker to pick it up.'
        : 'Started by hand; waiting for a worker to pick it up.';
      return { title: replayOf ? 'Replay queued' : 'Queued', parts: [words], tone: 'info', icon: 'queue' };
    }
    case 'run.started': {
      const attempt = number(data.attempt) ?? event.attempt;
      return attempt > 1
        ? { title: `Attempt ${attempt} started`, parts: ['A worker picked the run up again. Steps that already finished are skipped.'], tone: 'info', icon: 'play' }
        : data.resumed === true
          ? { title: 'Run resumed', parts: ['A worker picked the run up again after the previous one stopped; it continues from the last recorded step.'], tone: 'info', icon: 'play' }
          : { title: 'Run started', parts: ['A worker picked the run up.'], tone: 'info', icon: 'play' };
    }
    case 'run.succeeded':
      return { title: 'Run succeeded', parts: ['Every step on the path is done.'], tone: 'ok', icon: 'check' };
    case 'run.failed':
      return { title: 'Run failed', parts: [message ? readableMessage(message) : 'The run stopped.'], tone: 'bad', icon: 'cross' };
    case 'run.needs_review': {
      const stuck = text(data.nodeId);
      const name = stuck ? (context.step(stuck)?.label ?? stuck) : 'A step';
      return { title: 'Needs review', parts: [`“${name}” needs your decision before the run can go on.`], tone: 'warn', icon: 'question' };
    }
    case 'run.rerun_scheduled': {
      const at = number(data.at);
      const which = automaticWords(data);
      return {
        title: 'Will try again',
        parts: [`The flow says to try a failed run again: ${which ?? 'an automatic rerun'} starts ${at === undefined ? 'later' : formatWhen(at)}, from the steps already done.`],
        tone: 'wait',
        icon: 'retry',
      };
    }
    case 'run.rerun':
      if (data.automatic) {
        return {
          title: `${capitalise(automaticWords(data) ?? 'automatic rerun')}${rerunVersion(data)}`,
          parts: ['The flow’s setting “If a run fails, try it again” started this attempt. Steps that already finished are skipped, and work already done is not done again.', ...keyChangeWords(data)],
          tone: 'info',
          icon: 'repeat',
        };
      }
      return {
        title: rerunTitle(data),
        parts: [
          `${by} started attempt ${event.attempt}${typeof data.operation === 'string' ? ` in the recovery “${data.operation}”` : data.bulk === true ? ' together with other runs' : ''}. Steps that already finished are skipped, and work already done is not done again.`,
          ...keyChangeWords(data),
        ],
        tone: 'info',
        icon: 'repeat',
      };
    case 'run.cancelled':
      return cancelSentence(data, by, (nodeId) => context.step(nodeId)?.label ?? nodeId);
    case 'step.started':
      return { title: 'Step started', parts: [`Working on “${label}”.`], tone: 'info', icon: 'play' };
    case 'step.succeeded': {
      const outcome = step?.type === 'condition' ? conditionOutcome((data.output ?? null) as unknown) : null;
      if (outcome) return { title: 'Condition checked', parts: [`“${label}”: ${outcome.sentence}.`], tone: 'ok', icon: 'check' };
      const skippedWait = (data.output as { skippedInTest?: unknown; wouldWaitUntil?: unknown } | null);
      if (skippedWait?.skippedInTest === true && typeof skippedWait.wouldWaitUntil === 'string') {
        return { title: 'Not waited in a test', parts: [`“${label}” did not wait: a test goes on at once. A live run would wait until ${skippedWait.wouldWaitUntil}.`], tone: 'ok', icon: 'check' };
      }
      const standIn = standInOf(data.output);
      if (standIn) {
        return {
          title: 'Done by a stand-in',
          parts: [`“${label}” went to ${STAND_IN_WORDS[standIn]} instead of the real service: nothing real was touched.${key ? ' Its test key ' : ''}`, ...(key ? [{ code: key }, ' is recorded as done for this test.'] : [])],
          tone: 'ok',
          icon: 'check',
        };
      }
      return {
        title: 'Done',
        parts: key ? [`“${label}” finished; key `, { code: key }, ' is recorded as done, so it will not be done again.'] : [`“${label}” finished.`],
        tone: 'ok',
        icon: 'check',
      };
    }
    case 'step.failed':
      return { title: 'Failed', parts: [message ? readableMessage(message) : `“${label}” did not work.`], tone: 'bad', icon: 'cross' };
    case 'step.retry_scheduled': {
      const delay = number(data.delayMs);
      const retry = number(data.retry);
      return {
        title: 'Trying again',
        parts: [`${message ? `${readableMessage(message)} ` : ''}Trying again${delay === undefined ? '' : ` in ${formatDuration(delay)}`}${retry === undefined ? '' : ` (retry ${retry})`}.`],
        tone: 'wait',
        icon: 'retry',
      };
    }
    case 'step.key_conflict':
      return {
        title: 'Key conflict',
        parts: ['Key ', { code: key ?? '?' }, ` was already used by ${who(data.runId)} for a different request, so this one was not sent. Make the key more specific, for example by adding the item it is about.`],
        tone: 'bad',
        icon: 'alert',
      };
    case 'step.waiting_for_claim':
      return {
        title: 'Waiting for other work',
        parts: [`${capitalize(who(data.runId))} is doing the same work (key `, { code: key ?? '?' }, ') right now; this step waits for it to finish.'],
        tone: 'wait',
        icon: 'clock',
      };
    // The key had expired (server/engine/key-expiry.ts), so the step acts again.
    case 'step.key_expired': {
      const expiredAt = number(data.expiredAt);
      const doneAt = number(data.doneAt);
      const expired = expiredAt === undefined ? ' had expired' : ` expired on ${formatDay(expiredAt)}`;
      const done = doneAt === undefined ? '' : ` It was done by ${who(data.runId)} on ${formatDay(doneAt)}; keys are kept only for their time to live.`;
      return {
        title: 'Key expired: acts again',
        parts: ['Key ', { code: key ?? '?' }, `${expired}; this will act again.${done}`],
        tone: 'warn',
        icon: 'repeat',
      };
    }
    case 'step.recovered':
      return {
        title: 'Recovered',
        parts: ['An earlier attempt stopped before recording its result. Sent again with the same key ', { code: key ?? '?' }, ', which the receiver recognises, so it happens only once.'],
        tone: 'ok',
        icon: 'recover',
      };
    case 'step.resolved': {
      const words =
        data.decision === 'happened' ? `${by} said it happened; it is recorded as done and nothing is sent again.`
        : data.decision === 'do-it' ? `${by} said it did not happen; it is done now.`
        : `${by} chose to skip it; the run goes on without it. Whether it happened stays unknown, so a later run with the same key will ask again.`;
      return { title: 'Decision recorded', parts: [words], tone: 'info', icon: 'flag' };
    }
    case 'step.waiting': {
      // A Run flow step says which child it waits for, and why (steps/child-run.ts).
      if (typeof data.childRunId === 'string' && typeof data.message === 'string') return { title: 'Waiting for a child run', parts: [`“${label}”: ${data.message}`], tone: 'wait', icon: 'clock' };
      const until = when(data.until);
      return { title: 'Waiting', parts: [until ? `“${label}” waits until ${until}.` : `“${label}” is waiting.`], tone: 'wait', icon: 'clock' };
    }
    // Pausing a flow (engine/flow-pause.ts).
    case 'run.held':
      return { title: 'Held: flow paused', parts: [`${by} paused this flow, so the run waits here until the flow is resumed. Nothing more is done meanwhile.`], tone: 'wait', icon: 'clock' };
    case 'run.released':
      return { title: 'Flow resumed', parts: [`${by} resumed the flow; the run continues in the order events arrived.`], tone: 'info', icon: 'play' };
    default:
      return { title: event.type, parts: [message ?? ''], tone: 'info', icon: 'queue' };
  }
}

function skipReason(data: Record<string, unknown>, decision: string | undefined): string {
  const attempt = number(data.attempt);
  switch (data.reason) {
    case 'checkpoint':
      // A checkpoint a person's decision wrote did not "finish": say who settled it.
      if (decision === 'happened' && data.status !== 'skipped') return 'Recorded as done by your decision that it happened; it is not done again.';
      if (decision === 'skip' && data.status === 'skipped') return 'Skipped by your decision; the run goes on without it.';
      return data.status === 'skipped'
        ? `This step was already skipped${attempt ? ` in attempt ${attempt}` : ''}, so it stays skipped.`
        : `This step already finished${attempt ? ` in attempt ${attempt}` : ''}; its result was reused.`;
    case 'branch':
      return 'This step is on a path the run did not take.';
    case 'stale':
      return 'This event is older than what was already recorded, so it was not applied and nothing after it runs.';
    case 'review':
      return 'A person chose to skip it.';
    case 'stopped':
      return 'The step stopped this path here.';
    default:
      return typeof data.reason === 'string' ? `Reason: ${data.reason}.` : 'It did not need to run.';
  }
}

/** "Rerun on v2 (was v1)" when the rerun moved the run to another version (version-choice.ts). */
/** "automatic rerun 2 of 3", from a scheduled or started automatic rerun's data. */
function automaticWords(data: Record<string, unknown>): string | undefined {
  const source = (data.automatic ?? data) as Record<string, unknown>;
  const which = number(source.number);
  const of = number(source.of);
  return which === undefined ? undefined : `automatic rerun ${which}${of === undefined ? '' : ` of ${of}`}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** ", on v4" for an automatic rerun, with the version it ran before when it moved. */
function rerunVersion(data: Record<string, unknown>): string {
  const version = number(data.version);
  const from = number(data.fromVersion);
  if (version === undefined) return '';
  return from === undefined ? `, on v${version}` : `, on v${version} (was v${from})`;
}

function rerunTitle(data: Record<string, unknown>): string {
  const version = number(data.version);
  const from = number(data.fromVersion);
  const latest = number(data.latestVersion);
  if (version !== undefined && latest !== undefined && from === undefined) return `Rerun on v${version}, the version it ran (v${latest} is newer)`;
  if (version === undefined || from === undefined) return 'Rerun';
  return `Rerun on v${version} (was v${from})`;
}

/** Why a step acts again on the new version: its rendered key changed. */
function keyChangeWords(data: Record<string, unknown>): string[] {
  const changes = Array.isArray(data.keyChanges) ? (data.keyChanges as Record<string, unknown>[]) : [];
  return changes.map((change) => `“${text(change.label) ?? text(change.nodeId) ?? 'A step'}” acts again: its key changed from ${text(change.from) ?? '?'} to ${text(change.to) ?? '?'}.`);
}

function capitalize(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}
