/**
 * Glossary
 * - run: one execution of a flow version for one trigger. Its `attempt` grows with each
 *   rerun; a worker holds it through a lease (`lease_owner`, `lease_until`) whose
 *   `lease_fence` grows every time it is taken, so a worker that lost the lease cannot write.
 * - step: one node of the flow executed in a run.
 * - checkpoint: the stored outcome of one step in one run, unique per (run, node).
 * - claim: the row (scope, key) that decides who may perform a side effect. Its `fence`
 *   grows on every take-over; every write to it names the fence it expects.
 * - timeline: the append-only events of a run, in the fixed vocabulary below.
 *
 * Run lifecycle (what happens on entry)
 * - queued: inserted by a trigger, replay or rerun; any worker may lease it.
 * - running: leased; the worker heartbeats the lease and writes checkpoints fenced by it.
 *   A lapsed lease makes it leasable again (the worker died): it resumes from checkpoints.
 * - waiting: parked without a lease until `wake_at` (a delay, or a claim held elsewhere).
 * - succeeded / failed / cancelled: final; failed may be rerun.
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

export const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'needs_review', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const SETTLED_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'needs_review', 'cancelled'];

export type ClaimStatus = 'in_progress' | 'succeeded' | 'failed' | 'uncertain';

/** `waiting` marks a delay that started; `uncertain` a step waiting for review. */
export type CheckpointStatus = 'succeeded' | 'skipped' | 'waiting' | 'uncertain' | 'failed';

export const TIMELINE_EVENT_TYPES = [
  'run.queued', 'run.started', 'run.succeeded', 'run.failed', 'run.needs_review', 'run.rerun', 'run.cancelled',
  'step.started', 'step.succeeded', 'step.failed', 'step.retry_scheduled', 'step.skipped', 'step.duplicate',
  'step.key_conflict', 'step.waiting_for_claim', 'step.recovered', 'step.uncertain', 'step.resolved', 'step.waiting',
  'webhook.received', 'webhook.duplicate', 'webhook.rejected',
] as const;
export type TimelineEventType = (typeof TIMELINE_EVENT_TYPES)[number];

export interface RunRow {
  id: string;
  seq: number;
  flowId: string;
  versionId: string;
  status: RunStatus;
  input: unknown;
  triggerKind: string;
  triggerNode: string | null;
  eventId: string | null;
  replayOf: string | null;
  attempt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  leaseFence: number;
  wakeAt: number | null;
  error: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  createdBy: string;
}

export interface ClaimRow {
  scope: string;
  key: string;
  status: ClaimStatus;
  fingerprint: string;
  request: unknown;
  ownerRunId: string;
  ownerNodeId: string;
  fence: number;
  leaseUntil: number;
  output: unknown;
  error: string | null;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
}

export interface CheckpointRow {
  runId: string;
  nodeId: string;
  status: CheckpointStatus;
  output: unknown;
  keyScope: string | null;
  key: string | null;
  attempt: number;
  createdAt: number;
}

export interface TimelineEvent {
  id?: number;
  runId: string;
  type: TimelineEventType;
  nodeId: string | null;
  attempt: number;
  data: Record<string, unknown> | null;
  createdAt: number;
}

/** Time, injectable so leases and backoff can be tested without sleeping. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
