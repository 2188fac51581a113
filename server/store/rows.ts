/** Column ↔ field mapping shared by the raw-SQL stores. JSON columns are text on both engines. */
import type { CheckpointRow, ClaimRow, RunRow, TimelineEvent } from '../engine/types.ts';

export const parseJson = (text: unknown): unknown => (typeof text === 'string' ? JSON.parse(text) : (text ?? null));
export const toJson = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

export const RUN_COLUMNS =
  'id, seq, flow_id, version_id, status, input, trigger_kind, trigger_node, event_id, replay_of, attempt, lease_owner, lease_until, lease_fence, wake_at, error, created_at, started_at, finished_at, created_by';

export function toRun(row: Record<string, unknown>): RunRow {
  return {
    id: row.id as string,
    seq: Number(row.seq),
    flowId: row.flow_id as string,
    versionId: row.version_id as string,
    status: row.status as RunRow['status'],
    input: parseJson(row.input),
    triggerKind: row.trigger_kind as string,
    triggerNode: (row.trigger_node as string | null) ?? null,
    eventId: (row.event_id as string | null) ?? null,
    replayOf: (row.replay_of as string | null) ?? null,
    attempt: Number(row.attempt),
    leaseOwner: (row.lease_owner as string | null) ?? null,
    leaseUntil: row.lease_until == null ? null : Number(row.lease_until),
    leaseFence: Number(row.lease_fence),
    wakeAt: row.wake_at == null ? null : Number(row.wake_at),
    error: (row.error as string | null) ?? null,
    createdAt: Number(row.created_at),
    startedAt: row.started_at == null ? null : Number(row.started_at),
    finishedAt: row.finished_at == null ? null : Number(row.finished_at),
    createdBy: (row.created_by as string) ?? 'system',
  };
}

export const CLAIM_COLUMNS =
  'scope, key, status, fingerprint, request, owner_run_id, owner_node_id, fence, lease_until, output, error, expires_at, created_at, updated_at';

export function toClaim(row: Record<string, unknown>): ClaimRow {
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
    error: (row.error as string | null) ?? null,
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function toCheckpoint(row: Record<string, unknown>): CheckpointRow {
  return {
    runId: row.run_id as string,
    nodeId: row.node_id as string,
    status: row.status as CheckpointRow['status'],
    output: parseJson(row.output),
    keyScope: (row.key_scope as string | null) ?? null,
    key: (row.key as string | null) ?? null,
    attempt: Number(row.attempt),
    createdAt: Number(row.created_at),
  };
}

export function toEvent(row: Record<string, unknown>): TimelineEvent {
  return {
    id: Number(row.id),
    runId: row.run_id as string,
    type: row.type as TimelineEvent['type'],
    nodeId: (row.node_id as string | null) ?? null,
    attempt: Number(row.attempt),
    data: parseJson(row.data) as TimelineEvent['data'],
    createdAt: Number(row.created_at),
  };
}
