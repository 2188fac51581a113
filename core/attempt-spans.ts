/**
 * How long a run's attempts took, said the same way by the runs list (the current attempt's
 * figure, on the server) and the run page (each attempt's, in the browser). An attempt runs
 * from the worker picking it up to its end (succeeded, failed, needs review, cancelled); the
 * time a run sat failed before someone reran it belongs to no attempt.
 *
 * The run's own row has two of these moments exactly: when its first attempt began
 * (`startedAt`, written with its first lease) and when its current attempt ended
 * (`finishedAt`). The timeline's events were stamped a moment apart from the row's writes
 * (the worker takes the run, then records `run.started`; the ending event is recorded just
 * before the row is written), so where the row has a moment, both places take it from the
 * row, and the list and the page give one figure to the millisecond.
 */

export interface AttemptSpan {
  attempt: number;
  startedAt: number;
  /** Null while the attempt is still going. */
  finishedAt: number | null;
}

/** The run row's moments that spans are taken from. */
export interface RunTimes {
  attempt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

interface SpanEvent {
  type: string;
  attempt: number;
  createdAt: number;
}

const ENDINGS: ReadonlySet<string> = new Set(['run.succeeded', 'run.failed', 'run.needs_review', 'run.cancelled']);

/** Each attempt's span, from the run's timeline and its row. */
export function attemptSpans(events: readonly SpanEvent[], run: RunTimes): AttemptSpan[] {
  const spans = new Map<number, AttemptSpan>();
  for (const event of events) {
    const span = spans.get(event.attempt);
    if (event.type === 'run.started') {
      // A worker that resumes an attempt after a crash or a wait starts it again; the attempt began with the first.
      if (!span) spans.set(event.attempt, { attempt: event.attempt, startedAt: event.createdAt, finishedAt: null });
      else span.finishedAt = null;
    } else if (ENDINGS.has(event.type) && span) {
      span.finishedAt = event.createdAt;
    }
  }
  const first = spans.get(1);
  if (first && run.startedAt !== null) first.startedAt = run.startedAt;
  const current = spans.get(run.attempt);
  if (current && run.finishedAt !== null) current.finishedAt = run.finishedAt;
  return [...spans.values()].sort((a, b) => a.attempt - b.attempt);
}

/**
 * The current attempt's duration, as the runs list shows it (null while it has not
 * finished): the same figure as that attempt's span in `attemptSpans`, from the row and,
 * for a rerun, the first `run.started` of its current attempt (store/attempt-starts.ts).
 */
export function currentAttemptDuration(run: RunTimes, currentAttemptStartedAt: number | undefined): number | null {
  const startedAt = run.attempt > 1 ? (currentAttemptStartedAt ?? null) : run.startedAt;
  return startedAt !== null && run.finishedAt !== null ? Math.max(0, run.finishedAt - startedAt) : null;
}
