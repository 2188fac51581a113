/**
 * Glossary
 * - run: one execution of a flow version for one trigger. Its `attempt` grows with each
 *   rerun; a worker holds it through a lease (`lease_owner`, `lease_until`) whose
 *   `lease_fence` grows every time it is taken, so a worker that lost the lease cannot write.
 * - step: one node of the flow executed in a run.
 * - checkpoint: the stored outcome of one step in one run, unique per (run, node).
 * - claim: the row (scope, key) that decides who may perform a side effect. Its `fence`
 *   grows on every take-over; every write to it names the fence it expects.
 * - timeline: the append-only events of a run, in the fixed vocabulary of
 *   `TIMELINE_EVENT_TYPES`.
 *
 * The rows and their status words are the store's (store/types.ts), re-exported here;
 * what follows is what the engine makes of them.
 *
 * Run lifecycle (what happens on entry)
 * - queued: inserted by a trigger, replay or rerun; any worker may lease it.
 * - running: leased; the worker heartbeats the lease and writes checkpoints fenced by it.
 *   A lapsed lease makes it leasable again (the worker died): it resumes from checkpoints.
 * - waiting: parked without a lease until `wake_at` (a delay, or a claim held elsewhere).
 * - succeeded / failed / cancelled: final; failed may be rerun. Cancelling a run cancels
 *   the child runs it started that have not ended too (run-cancel.ts).
 * - needs_review: a side effect may or may not have happened; a person resolves it
 *   (It happened / Do it / Skip) or reruns it.
 *
 * Claim lifecycle
 * - in_progress: inserted by the winner (fence 1), or taken over (fence + 1) after the
 *   holder's lease lapsed. Only the holder of the current fence acts and records.
 * - succeeded: the action is done; its output is reused by everyone with the same key.
 * - failed: definitively refused by the receiver; the next claimant takes it over and acts.
 * - uncertain: the outcome is unknown and the receiver does not honour keys; it waits for
 *   a person. "It happened" makes it succeeded, "do it now" failed (the next claimant
 *   acts); "Skip" leaves it uncertain with a record of the skip, so every later run with
 *   the key stops for review. Expired claims (past their keep time) count as absent.
 */

import type { RunStatus } from '../store/types.ts';

export { RUN_STATUSES, TIMELINE_EVENT_TYPES } from '../store/types.ts';
export type {
  CheckpointRow, CheckpointStatus, ClaimRow, ClaimStatus, RunRow, RunStatus, TestTargets, TimelineEvent, TimelineEventType,
} from '../store/types.ts';

export const SETTLED_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'needs_review', 'cancelled'];

/** Time, injectable so leases and backoff can be tested without sleeping. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
