/**
 * Column ↔ field mapping for every table. Statements select a mapper's `columns` and hand
 * each row to its `read`; fields are named as in prisma/schema.prisma, and
 * rows.schema.test.ts checks every mapper against the schema on both databases. JSON
 * columns are text on both engines; BIGINT times come back as numbers.
 */
import type { Row } from './db.ts';
import type {
  CheckpointRow, ClaimRow, FlowRow, FlowVersionRow, OperationRow, OperationRunRow, ProofRow, RunRow, SecretRow, StandInEffect, StoredTriggerRow,
  TimelineEvent,
} from './types.ts';

export const parseJson = (text: unknown): unknown => (typeof text === 'string' ? JSON.parse(text) : (text ?? null));
export const toJson = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

const orNull = (value: unknown): string | null => (value as string | null) ?? null;
const numberOrNull = (value: unknown): number | null => (value == null ? null : Number(value));

export const RUN_COLUMNS =
  'id, seq, flow_id, version_id, status, input, trigger_kind, trigger_node, event_id, replay_of, attempt, lease_owner, lease_until, lease_fence, wake_at, error, created_at, started_at, finished_at, created_by, test_scope, test_targets, failed_node, parent_run_id, parent_node_id';

export function toRun(row: Row): RunRow {
  return {
    id: row.id as string,
    seq: Number(row.seq),
    flowId: row.flow_id as string,
    versionId: row.version_id as string,
    status: row.status as RunRow['status'],
    input: parseJson(row.input),
    triggerKind: row.trigger_kind as string,
    triggerNode: orNull(row.trigger_node),
    eventId: orNull(row.event_id),
    replayOf: orNull(row.replay_of),
    attempt: Number(row.attempt),
    leaseOwner: orNull(row.lease_owner),
    leaseUntil: numberOrNull(row.lease_until),
    leaseFence: Number(row.lease_fence),
    wakeAt: numberOrNull(row.wake_at),
    error: orNull(row.error),
    createdAt: Number(row.created_at),
    startedAt: numberOrNull(row.started_at),
    finishedAt: numberOrNull(row.finished_at),
    createdBy: (row.created_by as string) ?? 'system',
    testScope: orNull(row.test_scope),
    testTargets: orNull(row.test_targets) as RunRow['testTargets'],
    failedNode: orNull(row.failed_node),
    parentRunId: orNull(row.parent_run_id),
    parentNodeId: orNull(row.parent_node_id),
  };
}

export const CLAIM_COLUMNS =
  'scope, key, status, fingerprint, request, owner_run_id, owner_node_id, fence, lease_until, output, error, expires_at, created_at, updated_at';

export function toClaim(row: Row): ClaimRow {
  return {
    scope: row.scope as string,
    key: row.key as string,
    status: row.status as ClaimRow['status'],
    fingerprint: row.fingerprint as string,
    request: parseJson(row.request),
    ownerRunId: row.owner_run_id as string,
    ownerNodeId: row.owner_node_id as string,
    fence: Number(row.fence),
    leaseUntil: Number(row.lease_until),
    output: parseJson(row.output),
    error: orNull(row.error),
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export const CHECKPOINT_COLUMNS = 'run_id, node_id, status, output, key_scope, key, attempt, created_at';

export function toCheckpoint(row: Row): CheckpointRow {
  return {
    runId: row.run_id as string,
    nodeId: row.node_id as string,
    status: row.status as CheckpointRow['status'],
    output: parseJson(row.output),
    keyScope: orNull(row.key_scope),
    key: orNull(row.key),
    attempt: Number(row.attempt),
    createdAt: Number(row.created_at),
  };
}

export const EVENT_COLUMNS = 'id, run_id, type, node_id, attempt, data, created_at';

export function toEvent(row: Row): TimelineEvent {
  return {
    id: Number(row.id),
    runId: row.run_id as string,
    type: row.type as TimelineEvent['type'],
    nodeId: orNull(row.node_id),
    attempt: Number(row.attempt),
    data: parseJson(row.data) as TimelineEvent['data'],
    createdAt: Number(row.created_at),
  };
}

export const FLOW_COLUMNS = 'id, name, draft, created_at, updated_at';

export function toFlow(row: Row): FlowRow {
  return {
    id: row.id as string,
    name: row.name as string,
    draft: row.draft as string,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export const FLOW_VERSION_COLUMNS = 'id, flow_id, version, document, created_at, created_by, key_changes';

export function toFlowVersion(row: Row): FlowVersionRow {
  return {
    id: row.id as string,
    flowId: row.flow_id as string,
    version: Number(row.version),
    document: row.document as string,
    createdAt: Number(row.created_at),
    createdBy: row.created_by as string,
    keyChanges: (row.key_changes as string | null) ?? null,
  };
}

export const TRIGGER_COLUMNS = 'hook_id, flow_id, node_id, kind, created_at, last_fire_at';

export function toTrigger(row: Row): StoredTriggerRow {
  return {
    hookId: row.hook_id as string,
    flowId: row.flow_id as string,
    nodeId: row.node_id as string,
    kind: row.kind as string,
    createdAt: Number(row.created_at),
    lastFireAt: numberOrNull(row.last_fire_at),
  };
}

export interface InboundEventRow {
  id: string;
  hookId: string;
  eventId: string;
  runId: string;
  duplicates: number;
  receivedAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

// `headers` and `body` are not read: a delivery's input lives on its run.
export const INBOUND_EVENT_COLUMNS = 'id, hook_id, event_id, run_id, duplicates, received_at, last_seen_at, expires_at';

export function toInboundEvent(row: Row): InboundEventRow {
  return {
    id: row.id as string,
    hookId: row.hook_id as string,
    eventId: row.event_id as string,
    runId: row.run_id as string,
    duplicates: Number(row.duplicates),
    receivedAt: Number(row.received_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
  };
}

export interface RejectionRow {
  id: number;
  hookId: string;
  status: number;
  reason: string;
  receivedAt: number;
}

export const REJECTION_COLUMNS = 'id, hook_id, status, reason, received_at';

export function toRejection(row: Row): RejectionRow {
  return {
    id: Number(row.id),
    hookId: row.hook_id as string,
    status: Number(row.status),
    reason: row.reason as string,
    receivedAt: Number(row.received_at),
  };
}

export interface EntityStateRow {
  scope: string;
  entity: string;
  state: string;
  rank: number;
  version: number;
  appliedBy: string | null;
  updatedAt: number;
}

export const ENTITY_STATE_COLUMNS = 'scope, entity, state, rank, version, applied_by, updated_at';

export function toEntityState(row: Row): EntityStateRow {
  return {
    scope: row.scope as string,
    entity: row.entity as string,
    state: row.state as string,
    rank: Number(row.rank),
    version: Number(row.version),
    appliedBy: orNull(row.applied_by),
    updatedAt: Number(row.updated_at),
  };
}

export const SECRET_COLUMNS = 'name, ciphertext, iv, tag, updated_at';

export function toSecret(row: Row): SecretRow {
  return {
    name: row.name as string,
    ciphertext: row.ciphertext as string,
    iv: row.iv as string,
    tag: row.tag as string,
    updatedAt: Number(row.updated_at),
  };
}

export interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  startedAt: number;
  seenAt: number;
}

export const WORKER_COLUMNS = 'id, host, pid, started_at, seen_at';

export function toWorker(row: Row): WorkerRow {
  return {
    id: row.id as string,
    host: row.host as string,
    pid: Number(row.pid),
    startedAt: Number(row.started_at),
    seenAt: Number(row.seen_at),
  };
}

export interface RowMapper {
  table: string;
  /** The columns `read` expects, as statements select them. */
  columns: string;
  /** Text columns that hold JSON, handed out parsed. */
  json: readonly string[];
  /** Columns of the table deliberately left unread. */
  unread: readonly string[];
  read(row: Row): unknown;
}

export const STAND_IN_EFFECT_COLUMNS = 'id, receiver, idempotency_key, run_id, node_id, request, response, created_at';

export function toStandInEffect(row: Row): StandInEffect {
  return {
    id: row.id as string,
    receiver: row.receiver as string,
    idempotencyKey: orNull(row.idempotency_key),
    runId: orNull(row.run_id),
    nodeId: orNull(row.node_id),
    request: parseJson(row.request),
    response: parseJson(row.response),
    createdAt: Number(row.created_at),
  };
}

export const PROOF_COLUMNS = 'id, flow_id, version_id, fingerprint, status, report, created_at, finished_at, created_by';

export function toProof(row: Row): ProofRow {
  return {
    id: row.id as string,
    flowId: row.flow_id as string,
    versionId: row.version_id as string,
    fingerprint: row.fingerprint as string,
    status: row.status as ProofRow['status'],
    report: parseJson(row.report),
    createdAt: Number(row.created_at),
    finishedAt: numberOrNull(row.finished_at),
    createdBy: row.created_by as string,
  };
}

/** What is kept of a claim the sweeper forgot after its time to live (store/expired-keys.ts). */
export interface ExpiredKeyRow {
  scope: string;
  key: string;
  /** When the work under the key was done. */
  doneAt: number;
  /** The run that did it, and its step. */
  runId: string;
  step: string;
  expiredAt: number;
}

export const EXPIRED_KEY_COLUMNS = 'scope, key, done_at, run_id, step, expired_at';

export function toExpiredKey(row: Row): ExpiredKeyRow {
  return {
    scope: row.scope as string,
    key: row.key as string,
    doneAt: Number(row.done_at),
    runId: row.run_id as string,
    step: row.step as string,
    expiredAt: Number(row.expired_at),
  };
}

export const INPUT_VALUE_COLUMNS = 'path, value, run_seq';

/** One searchable value of a run's input (input-values.ts); read only by tests. */
export interface InputValueRow {
  path: string;
  value: string;
  runSeq: number;
}

export function toInputValue(row: Row): InputValueRow {
  return { path: row.path as string, value: row.value as string, runSeq: Number(row.run_seq) };
}

export const RETIRED_RUN_NUMBER_COLUMNS = 'id, highest';

/** The highest run number retention has deleted (retention.ts); SQLite's numbering reads it in SQL (runs.ts), this mapper only tests. */
export interface RetiredRunNumberRow {
  id: number;
  highest: number;
}

export function toRetiredRunNumber(row: Row): RetiredRunNumberRow {
  return { id: Number(row.id), highest: Number(row.highest) };
}

export const OPERATION_COLUMNS = 'id, kind, name, request, preview, status, total, done, error, created_by, created_at, finished_at, cancelled_by';

export function toOperation(row: Row): OperationRow {
  return {
    id: row.id as string,
    kind: row.kind as OperationRow['kind'],
    name: row.name as string,
    request: parseJson(row.request),
    preview: parseJson(row.preview),
    status: row.status as OperationRow['status'],
    total: Number(row.total),
    done: Number(row.done),
    error: orNull(row.error),
    createdBy: row.created_by as string,
    createdAt: Number(row.created_at),
    finishedAt: numberOrNull(row.finished_at),
    cancelledBy: orNull(row.cancelled_by),
  };
}

export const OPERATION_RUN_COLUMNS = 'operation_id, position, run_id, state, target_run_id, attempt, note';

export function toOperationRun(row: Row): OperationRunRow {
  return {
    operationId: row.operation_id as string,
    position: Number(row.position),
    runId: row.run_id as string,
    state: row.state as OperationRunRow['state'],
    targetRunId: orNull(row.target_run_id),
    attempt: numberOrNull(row.attempt),
    note: orNull(row.note),
  };
}

/** One alert in the outbox (migration 0015). */
export interface AlertOutboxRow {
  id: string;
  flowId: string;
  runId: string | null;
  kind: string;
  alertKey: string;
  status: string;
  batchKey: string | null;
  message: string | null;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number;
  leaseUntil: number | null;
  createdAt: number;
  sentAt: number | null;
}

export const ALERT_OUTBOX_COLUMNS = 'id, flow_id, run_id, kind, alert_key, status, batch_key, message, attempts, last_error, next_attempt_at, lease_until, created_at, sent_at';

export function toAlertOutbox(row: Row): AlertOutboxRow {
  return {
    id: row.id as string,
    flowId: row.flow_id as string,
    runId: orNull(row.run_id),
    kind: row.kind as string,
    alertKey: row.alert_key as string,
    status: row.status as string,
    batchKey: orNull(row.batch_key),
    message: orNull(row.message),
    attempts: Number(row.attempts),
    lastError: orNull(row.last_error),
    nextAttemptAt: Number(row.next_attempt_at),
    leaseUntil: numberOrNull(row.lease_until),
    createdAt: Number(row.created_at),
    sentAt: numberOrNull(row.sent_at),
  };
}

export interface AlertDefaultsRow {
  id: number;
  settings: unknown;
  updatedAt: number;
  updatedBy: string;
}

export const ALERT_DEFAULTS_COLUMNS = 'id, settings, updated_at, updated_by';

export function toAlertDefaults(row: Row): AlertDefaultsRow {
  return { id: Number(row.id), settings: parseJson(row.settings), updatedAt: Number(row.updated_at), updatedBy: row.updated_by as string };
}

/** One mapper per table, for the test that holds them to the schema. */
export const ROW_MAPPERS: readonly RowMapper[] = [
  // Automatic reruns are read where they are scheduled and shown (auto-reruns.ts); what a
  // parked run waits for is only read by the wake-up statement (child-runs.ts).
  { table: 'runs', columns: RUN_COLUMNS, json: ['input'], unread: ['waits_for_run_id', 'auto_rerun_at', 'auto_reruns'], read: toRun },
  { table: 'claims', columns: CLAIM_COLUMNS, json: ['request', 'output'], unread: [], read: toClaim },
  { table: 'checkpoints', columns: CHECKPOINT_COLUMNS, json: ['output'], unread: [], read: toCheckpoint },
  { table: 'timeline_events', columns: EVENT_COLUMNS, json: ['data'], unread: [], read: toEvent },
  { table: 'flows', columns: FLOW_COLUMNS, json: [], unread: ['paused_at', 'paused_by'], read: toFlow },
  { table: 'flow_versions', columns: FLOW_VERSION_COLUMNS, json: [], unread: [], read: toFlowVersion },
  { table: 'triggers', columns: TRIGGER_COLUMNS, json: [], unread: [], read: toTrigger },
  { table: 'inbound_events', columns: INBOUND_EVENT_COLUMNS, json: [], unread: ['headers', 'body', 'repeats'], read: toInboundEvent },
  { table: 'webhook_rejections', columns: REJECTION_COLUMNS, json: [], unread: [], read: toRejection },
  { table: 'entity_states', columns: ENTITY_STATE_COLUMNS, json: [], unread: [], read: toEntityState },
  { table: 'secrets', columns: SECRET_COLUMNS, json: [], unread: [], read: toSecret },
  { table: 'workers', columns: WORKER_COLUMNS, json: [], unread: [], read: toWorker },
  { table: 'proofs', columns: PROOF_COLUMNS, json: ['report'], unread: [], read: toProof },
  { table: 'operations', columns: OPERATION_COLUMNS, json: ['request', 'preview'], unread: [], read: toOperation },
  { table: 'operation_runs', columns: OPERATION_RUN_COLUMNS, json: [], unread: [], read: toOperationRun },
  { table: 'alert_outbox', columns: ALERT_OUTBOX_COLUMNS, json: [], unread: [], read: toAlertOutbox },
  { table: 'alert_defaults', columns: ALERT_DEFAULTS_COLUMNS, json: ['settings'], unread: [], read: toAlertDefaults },
  { table: 'stand_in_effects', columns: STAND_IN_EFFECT_COLUMNS, json: ['request', 'response'], unread: [], read: toStandInEffect },
  { table: 'expired_keys', columns: EXPIRED_KEY_COLUMNS, json: [], unread: [], read: toExpiredKey },
  { table: 'run_input_values', columns: INPUT_VALUE_COLUMNS, json: [], unread: [], read: toInputValue },
  { table: 'retired_run_numbers', columns: RETIRED_RUN_NUMBER_COLUMNS, json: [], unread: [], read: toRetiredRunNumber },
];
