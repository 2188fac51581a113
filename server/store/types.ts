/**
 * The rows the store hands out, in the vocabulary of its columns. The engine builds on
 * these (engine/types.ts re-exports them with the lifecycles that give them meaning);
 * nothing here knows about the engine. Times are milliseconds since the epoch, JSON
 * columns come back parsed.
 */

/** `held`: the run's flow is paused; it is never leased until the flow is resumed. */
export const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'needs_review', 'cancelled', 'held'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export type ClaimStatus = 'in_progress' | 'succeeded' | 'failed' | 'uncertain';

/** `waiting` marks a delay that started; `uncertain` a step waiting for review. */
export type CheckpointStatus = 'succeeded' | 'skipped' | 'waiting' | 'uncertain' | 'failed';

export const TIMELINE_EVENT_TYPES = [
  'run.queued', 'run.started', 'run.succeeded', 'run.failed', 'run.needs_review', 'run.rerun', 'run.cancelled',
  'step.started', 'step.succeeded', 'step.failed', 'step.retry_scheduled', 'step.skipped', 'step.duplicate',
  'step.key_conflict', 'step.waiting_for_claim', 'step.recovered', 'step.uncertain', 'step.resolved', 'step.waiting',
  'webhook.received', 'webhook.duplicate', 'webhook.rejected',
  'run.held', 'run.released', 'run.rerun_scheduled',
  // The step's key had expired (store/expired-keys.ts), so it acts again.
  'step.key_expired',
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
  /** Set on test runs: the test their claims belong to (see TestScope in test-mode/). */
  testScope: string | null;
  /** Where a test run's side effects go; null on live runs. */
  testTargets: TestTargets | null;
  /** The step a failed run failed at (null otherwise, or when no step did). */
  failedNode: string | null;
  /** Set on a run started by a Run flow step: the parent run and its step (flow-run.ts). */
  parentRunId: string | null;
  parentNodeId: string | null;
}

/** A test run's side effects go to the built-in stand-ins, or (when asked) to the real services. */
export type TestTargets = 'stand-ins' | 'real-services';

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

/** Where a claim is: the (scope, key) its unique index decides on. */
export interface ClaimRef {
  scope: string;
  key: string;
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
  /** Set by the database; absent on an event not yet written. */
  id?: number;
  runId: string;
  type: TimelineEventType;
  nodeId: string | null;
  attempt: number;
  data: Record<string, unknown> | null;
  createdAt: number;
}

export interface FlowRow {
  id: string;
  name: string;
  /** The draft document as JSON text. */
  draft: string;
  createdAt: number;
  updatedAt: number;
}

export interface FlowSummaryRow {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  latestVersion: number | null;
}

export interface FlowVersionRow {
  id: string;
  flowId: string;
  version: number;
  /** The published document as JSON text; never changed once written. */
  document: string;
  createdAt: number;
  createdBy: string;
  /** JSON text of the key changes confirmed at publish; null when the version changed no key. */
  keyChanges: string | null;
}

/** A trigger as flows show it: the hook id is the webhook URL's last part. */
export interface TriggerRow {
  hookId: string;
  flowId: string;
  nodeId: string;
  kind: string;
}

/** The whole stored trigger, with the schedule's bookkeeping. */
export interface StoredTriggerRow extends TriggerRow {
  createdAt: number;
  /** Schedules: the last fire time handed to a run. */
  lastFireAt: number | null;
}

/** One encrypted value as stored: every field base64. */
export interface EncryptedValue {
  ciphertext: string;
  iv: string;
  tag: string;
}

export interface SecretRow extends EncryptedValue {
  name: string;
  updatedAt: number;
}

/** What a built-in stand-in received from a test run (stand-in-effects.ts). */
export interface StandInEffect {
  id: string;
  /** payments, http, email or chat. */
  receiver: string;
  /** Kept only by a stand-in that honours keys. */
  idempotencyKey: string | null;
  runId: string | null;
  nodeId: string | null;
  request: unknown;
  response: unknown;
  createdAt: number;
}

/** A proof of a flow's draft (proofs.ts); its report is the engine's, kept as JSON. */
export interface ProofRow {
  id: string;
  flowId: string;
  versionId: string;
  fingerprint: string;
  status: 'running' | 'passed' | 'failed';
  report: unknown;
  createdAt: number;
  finishedAt: number | null;
  createdBy: string;
}

export type OperationStatus = 'running' | 'cancelled' | 'finished' | 'failed';

/** An operation over many runs (operations.ts): what was asked and how far it got. */
export interface OperationRow {
  id: string;
  kind: 'recover';
  name: string;
  request: unknown;
  preview: unknown;
  status: OperationStatus;
  total: number;
  done: number;
  error: string | null;
  createdBy: string;
  createdAt: number;
  finishedAt: number | null;
  cancelledBy: string | null;
}

export type OperationRunState = 'pending' | 'queued' | 'passed';

/** One run an operation included, and what became of it. */
export interface OperationRunRow {
  operationId: string;
  position: number;
  runId: string;
  state: OperationRunState;
  /** The run doing the work: the run itself (rerun) or its replay. */
  targetRunId: string | null;
  /** The rerun's attempt (a replay's work starts at attempt 1). */
  attempt: number | null;
  /** Why a passed run was left alone. */
  note: string | null;
}
