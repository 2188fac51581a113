/** How runs are shown: summaries for lists, and the full picture of one run. */
import type { FlowDocument } from './flow/document.ts';
import { isSideEffectStep } from './flow/document.ts';
import type { CheckpointRow, ClaimRow, RunRow, TimelineEvent } from './types.ts';

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
}

export function summarizeRun(run: RunRow): RunSummary {
  const { id, seq, flowId, versionId, status, triggerKind, eventId, replayOf, attempt, error, createdAt, startedAt, finishedAt } = run;
  return { id, seq, flowId, versionId, status, triggerKind, eventId, replayOf, attempt, error, createdAt, startedAt, finishedAt };
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

/** A step's status in this run: its checkpoint when it has one, else its latest event. */
export function stepViews(document: FlowDocument, checkpoints: CheckpointRow[], events: TimelineEvent[], claims: ClaimRow[]): StepView[] {
  const byNode = new Map(checkpoints.map((checkpoint) => [checkpoint.nodeId, checkpoint]));
  const claimByKey = new Map(claims.map((claim) => [`${claim.scope}\u0000${claim.key}`, claim]));
  return document.nodes.map((node) => {
    const nodeEvents = events.filter((event) => event.nodeId === node.id);
    const checkpoint = byNode.get(node.id);
    const last = nodeEvents.at(-1);
    const keyEvent = [...nodeEvents].reverse().find((event) => typeof event.data?.key === 'string');
    const key = checkpoint?.key ?? (keyEvent?.data?.key as string | undefined) ?? null;
    const keyScope = checkpoint?.keyScope ?? (keyEvent?.data?.scope as string | undefined) ?? null;
    const claim = key && keyScope ? claimByKey.get(`${keyScope}\u0000${key}`) : undefined;
    let status: StepStatus = 'not_reached';
    if (checkpoint) {
      const duplicate = checkpoint.status === 'succeeded' && nodeEvents.some((event) => event.type === 'step.duplicate');
      status = duplicate ? 'duplicate' : checkpoint.status === 'waiting' ? 'waiting' : checkpoint.status;
    } else if (last) {
      status =
        last.type === 'step.failed' || last.type === 'step.key_conflict' ? 'failed'
        : last.type === 'step.waiting_for_claim' ? 'waiting'
        : last.type === 'step.skipped' ? 'skipped'
        : 'running';
    }
    const failure = [...nodeEvents].reverse().find((event) => event.type === 'step.failed' || event.type === 'step.retry_scheduled');
    return {
      nodeId: node.id,
      type: node.type,
      label: typeof node.data.label === 'string' && node.data.label ? node.data.label : node.id,
      sideEffect: isSideEffectStep(node),
      status,
      key,
      keyScope,
      output: checkpoint?.output ?? null,
      attempts: nodeEvents.filter((event) => event.type === 'step.started').length,
      lastError: (failure?.data?.message as string | undefined) ?? null,
      claim: claim ? { status: claim.status, fence: claim.fence, ownerRunId: claim.ownerRunId, expiresAt: claim.expiresAt, updatedAt: claim.updatedAt } : null,
    };
  });
}
