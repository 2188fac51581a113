/**
 * "If a run fails, try it again after 1 minute, 10 minutes and 1 hour": a flow's
 * `settings.retryFailedRuns`, a list of delays (DESIGN.md §3). Plain facts shared by the
 * editor and the engine; the engine's checks are in server/engine/flow/validate-settings.ts.
 */
import { DURATION_PATTERN, parseDuration } from './duration.ts';

export const RETRY_LATER = {
  /** Most automatic reruns one failed run gets. */
  maxDelays: 10,
  /** Shortest wait before an automatic rerun: a failure that comes back at once needs time to clear. */
  minDelayMs: 10_000,
  /** Longest wait before one. */
  maxDelayMs: 7 * 86_400_000,
} as const;

/** The delays of a flow's `settings.retryFailedRuns` in milliseconds (validation refused any that are not durations). */
export function retryLaterDelays(settings: { retryFailedRuns?: readonly string[] } | undefined): number[] {
  return (settings?.retryFailedRuns ?? []).slice(0, RETRY_LATER.maxDelays).flatMap((delay) => {
    const match = DURATION_PATTERN.exec(delay.trim());
    return match ? [parseDuration(delay)] : [];
  });
}
