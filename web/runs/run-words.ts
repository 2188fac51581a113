/** The words the run pages use for statuses, triggers, times and durations. */
import type { RunStatus, StepStatus } from './run-types.ts';
import { dateFormat } from '../lib/date-format.ts';

export const RUN_STATUS_WORDS: Record<RunStatus, string> = {
  queued: 'queued',
  running: 'running',
  waiting: 'waiting',
  succeeded: 'succeeded',
  failed: 'failed',
  needs_review: 'needs review',
  cancelled: 'cancelled',
  held: 'held (flow paused)',
};

/** The statuses a person filters by, in the order they care about them. */
export const RUN_STATUS_FILTERS: readonly RunStatus[] = ['failed', 'needs_review', 'running', 'waiting', 'held', 'queued', 'succeeded', 'cancelled'];

/** Runs that may still change on their own (held: when someone resumes the flow), so their pages keep asking for news. */
export function isActive(status: RunStatus): boolean {
  return status === 'queued' || status === 'running' || status === 'waiting' || status === 'held';
}

export function canRerun(status: RunStatus): boolean {
  return status === 'failed' || status === 'needs_review';
}

export const STEP_STATUS_WORDS: Record<StepStatus, string> = {
  succeeded: 'Succeeded',
  duplicate: 'Duplicate stopped',
  skipped: 'Skipped',
  uncertain: 'Outcome unknown',
  failed: 'Failed',
  waiting: 'Waiting',
  running: 'Running',
  not_reached: 'Not reached',
};

/** What each colour on the run's canvas means, for the legend. */
export const STEP_STATUS_MEANINGS: ReadonlyArray<{ status: StepStatus; meaning: string }> = [
  { status: 'succeeded', meaning: 'Done in this run' },
  { status: 'duplicate', meaning: 'Already done earlier; the result was reused' },
  { status: 'skipped', meaning: 'Not run again, or not on the path taken' },
  { status: 'uncertain', meaning: 'Might have happened; needs your decision' },
  { status: 'failed', meaning: 'Did not work' },
  { status: 'waiting', meaning: 'Waiting for time to pass or for other work' },
  { status: 'not_reached', meaning: 'The run did not get this far' },
];

const dayOnly = dateFormat({ day: 'numeric', month: 'short' });
const dayAndYear = dateFormat({ day: 'numeric', month: 'short', year: 'numeric' });

/** `30 Dec`, with the year when it is not this one (`30 Dec 2025`). */
export function formatDay(at: number, now = Date.now()): string {
  return new Date(at).getFullYear() === new Date(now).getFullYear() ? dayOnly(at) : dayAndYear(at);
}

export function runLabel(seq: number): string {
  return `#${seq}`;
}

/** `#12` when the run's number is known, otherwise a short form of its id. */
export function runRef(id: string, numbers: ReadonlyMap<string, number>): string {
  const seq = numbers.get(id);
  return seq === undefined ? `run ${shortId(id)}` : `run #${seq}`;
}

export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 12)}…` : id;
}

interface TriggerFacts {
  triggerKind: string;
  eventId: string | null;
  replayOf: string | null;
  attempt: number;
}

/** How a run began, in a few words: "Webhook event evt_1", "Replay of run #3", "Started by hand" … */
export function triggerWords(run: TriggerFacts, numbers: ReadonlyMap<string, number> = new Map()): string {
  let words: string;
  if (run.replayOf) words = `Replay of ${runRef(run.replayOf, numbers)}`;
  else if (run.triggerKind === 'webhook') words = run.eventId ? `Webhook event ${run.eventId}` : 'Webhook event';
  else if (run.triggerKind === 'schedule') words = `Schedule, ${scheduleTime(run.eventId)}`;
  else if (run.triggerKind === 'flow') words = 'Started by another run';
  else words = 'Started by hand';
  return run.attempt > 1 ? `${words} · rerun, attempt ${run.attempt}` : words;
}

function scheduleTime(eventId: string | null): string {
  const at = eventId?.replace(/^schedule:/, '') ?? '';
  const time = Date.parse(at);
  return Number.isNaN(time) ? at || 'on time' : formatDateTime(time);
}

export const formatTime = dateFormat({ hour: '2-digit', minute: '2-digit', second: '2-digit' });
export const formatShortTime = dateFormat({ hour: '2-digit', minute: '2-digit' });
export const formatDateTime = dateFormat({ day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Today's times without a date; other days with one. */
export function formatWhen(at: number, now = Date.now()): string {
  return new Date(at).toDateString() === new Date(now).toDateString() ? formatTime(at) : formatDateTime(at);
}

/** `180 ms`, `4.2 s`, `3 min 5 s`, `2 h 10 min`. */
export function formatDuration(ms: number | null): string {
  if (ms === null || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

// Shared with the command line, so both say a receiver's failure in the same words.
export { readableMessage } from '../../core/readable-message.ts';
