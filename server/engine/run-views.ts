/** How runs are shown: summaries for lists, and the full picture of one run. */
import type { FlowDocument } from './flow/document.ts';
import { isSideEffectStep } from './flow/document.ts';
import type { StepTrace } from '../store/run-page.ts';
import type { ClaimRef } from '../store/types.ts';
import type { CheckpointRow, ClaimRow, RunRow, TestTargets } from './types.ts';

export interface RunSummary {
  id: string;
  seq: number;
  flowId: string;
  versionId: string;
  status: RunRow['status'];
  triggerKind: string;
  eventId: string | null;
  replayOf: string | null;
  attempt: number;
  error: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** Set on test runs: badged *Test* wherever runs are shown. */
  test: { scope: string; targets: TestTargets } | null;
  /** Set on a run a Run flow step started: badged *Child* in lists. */
  parentRunId: string | null;
}

export function summarizeRun(run: RunRow): RunSummary {
  const { id, seq, flowId, versionId, status, triggerKind, eventId, replayOf, attempt, error, createdAt, startedAt, finishedAt } = run;
  const test = run.testScope === null ? null : { scope: run.testScope, targets: run.testTargets ?? 'stand-ins' };
  return { id, seq, flowId, versionId, status, triggerKind, eventId, replayOf, attempt, error, createdAt, startedAt, finishedAt, test, parentRunId: run.parentRunId };
}

export type StepStatus = 'succeeded' | 'duplicate' | 'skipped' | 'uncertain' | 'failed' | 'waiting' | 'running' | 'not_reached';

export interface StepView {
  nodeId: string;
  type: string;
  label: string;
  sideEffect: boolean;
  status: StepStatus;
  key: string | null;
  keyScope: string | null;
  output: unknown;
  attempts: number;
  lastError: string | null;
  claim: Pick<ClaimRow, 'status' | 'fence' | 'ownerRunId' | 'expiresAt' | 'updatedAt'> | null;
}

/**
 * A step's status in this run. Its checkpoint decides when it has one, with the claim
 * telling a duplicate (the key's work was done by another run or step) from an action;
 * a step without a checkpoint is read from its latest event (running, failed, skipped
 * on a branch, or waiting for another run's claim).
 */
export function stepViews(document: FlowDocument, runId: string, checkpoints: CheckpointRow[], traces: StepTrace[], claims: ClaimRow[]): StepView[] {
  const records = indexRecords(runId, checkpoints, traces, claims);
  return document.nodes.map((node) => stepView(node, records));
}

/** A run's records by step and by key, built once for the views of many steps (a loop's items). */
export interface IndexedRecords {
  runId: string;
  byNode: ReadonlyMap<string, CheckpointRow>;
  traceByNode: ReadonlyMap<string, StepTrace>;
  claimByKey: ReadonlyMap<string, ClaimRow>;
}

export function indexRecords(runId: string, checkpoints: CheckpointRow[], traces: StepTrace[], claims: ClaimRow[]): IndexedRecords {
  return {
    runId,
    byNode: new Map(checkpoints.map((checkpoint) => [checkpoint.nodeId, checkpoint])),
    traceByNode: new Map(traces.map((trace) => [trace.nodeId, trace])),
    claimByKey: new Map(claims.map((claim) => [claimKey(claim.scope, claim.key), claim])),
  };
}

export function stepView(node: FlowDocument['nodes'][number], { runId, byNode, traceByNode, claimByKey }: IndexedRecords): StepView {
  const checkpoint = byNode.get(node.id);
  const trace = traceByNode.get(node.id);
  const { key, keyScope } = stepKey(checkpoint, trace);
  const claim = key && keyScope ? claimByKey.get(claimKey(keyScope, key)) : undefined;
  return {
    nodeId: node.id,
    type: node.type,
    label: typeof node.data.label === 'string' && node.data.label ? node.data.label : node.id,
    sideEffect: isSideEffectStep(node),
    status: stepStatus(node.id, runId, checkpoint, trace, claim),
    key,
    keyScope,
    output: checkpoint?.output ?? null,
    attempts: trace?.started ?? 0,
    lastError: (trace?.failure?.data?.message as string | undefined) ?? null,
    claim: claim ? { status: claim.status, fence: claim.fence, ownerRunId: claim.ownerRunId, expiresAt: claim.expiresAt, updatedAt: claim.updatedAt } : null,
  };
}

/** The idempotency keys a run's steps name: the claims its page shows. */
export function stepKeys(checkpoints: CheckpointRow[], traces: StepTrace[]): ClaimRef[] {
  const keys = new Map<string, ClaimRef>();
  for (const checkpoint of checkpoints) if (checkpoint.key && checkpoint.keyScope) keys.set(claimKey(checkpoint.keyScope, checkpoint.key), { scope: checkpoint.keyScope, key: checkpoint.key });
  for (const trace of traces) {
    const { key, keyScope } = stepKey(undefined, trace);
    if (key && keyScope) keys.set(claimKey(keyScope, key), { scope: keyScope, key });
  }
  return [...keys.values()];
}

function stepKey(checkpoint: CheckpointRow | undefined, trace: StepTrace | undefined) {
  const data = trace?.keyed?.data;
  return {
    key: checkpoint?.key ?? (typeof data?.key === 'string' ? data.key : null),
    keyScope: checkpoint?.keyScope ?? (typeof data?.scope === 'string' ? data.scope : null),
  };
}

function stepStatus(nodeId: string, runId: string, checkpoint: CheckpointRow | undefined, trace: StepTrace | undefined, claim: ClaimRow | undefined): StepStatus {
  if (checkpoint) {
    // A succeeded step whose key another run or step settled reused that work instead of acting.
    const reused = checkpoint.status === 'succeeded' && claim !== undefined && (claim.ownerRunId !== runId || claim.ownerNodeId !== nodeId);
    return reused ? 'duplicate' : checkpoint.status;
  }
  const last = trace?.last.type;
  if (last === undefined) return 'not_reached';
  return last === 'step.failed' || last === 'step.key_conflict' ? 'failed'
    : last === 'step.waiting_for_claim' ? 'waiting'
    : last === 'step.skipped' ? 'skipped'
    : 'running';
}

const claimKey = (scope: string, key: string) => `${scope}\u0000${key}`;
