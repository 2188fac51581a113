/**
 * "If a run fails, try it again after 1 minute, 10 minutes and 1 hour": a flow's
 * `settings.retryFailedRuns`, a list of delays (DESIGN.md §3). Plain facts shared by the
 * editor and the engine; the engine's checks are in server/engine/flow/validate-settings.ts.
 */
export const RETRY_LATER = {
  /** Most automatic reruns one failed run gets. */
  maxDelays: 10,
  /** Shortest wait before an automatic rerun: a failure that comes back at once needs time to clear. */
  minDelayMs: 10_000,
  /** Longest wait before one. */
  maxDelayMs: 7 * 86_400_000,
} as const;
