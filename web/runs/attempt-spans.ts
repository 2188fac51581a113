/**
 * How long each attempt of a run took, read off its timeline: from the worker picking the
 * attempt up (`run.started`) to the attempt's end (succeeded, failed, needs review,
 * cancelled). The time a run sat failed before someone reran it belongs to no attempt.
 */
import type { TimelineEntry } from './run-types.ts';

export interface AttemptSpan {
  attempt: number;
  startedAt: number;
  /** Null while the attempt is still going. */
  finishedAt: number | null;
}

const ENDINGS: ReadonlySet<string> = new Set(['run.succeeded', 'run.failed', 'run.needs_review', 'run.cancelled']);

export function attemptSpans(events: readonly Pick<TimelineEntry, 'type' | 'attempt' | 'createdAt'>[]): AttemptSpan[] {
  const spans = new Map<number, AttemptSpan>();
  for (const event of events) {
    const span = spans.get(event.attempt);
    if (event.type === 'run.started') {
      // A worker that resumes a crashed attempt starts it again; the attempt began with the first.
      if (!span) spans.set(event.attempt, { attempt: event.attempt, startedAt: event.createdAt, finishedAt: null });
      else span.finishedAt = null;
    } else if (ENDINGS.has(event.type) && span) {
      span.finishedAt = event.createdAt;
    }
  }
  return [...spans.values()].sort((a, b) => a.attempt - b.attempt);
}
