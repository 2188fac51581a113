/**
 * How a step ends its run before the flow is through: failed, or stopped for a person's
 * review. Each appends the step's event and the run's, then flushes the journal with the
 * run's ending and, when this worker holds the step's claim, the claim's outcome, all in
 * one fenced transaction.
 */
import type { StepJournal } from './run-journal.ts';

/** A claim this worker won or took over; `fence` proves it still holds it. */
export interface HeldClaim {
  scope: string;
  key: string;
  fence: number;
}

/** The run was parked or settled and the journal flushed; the executor stops here. */
export interface RunEnded {
  kind: 'ended';
}

const ENDED: RunEnded = { kind: 'ended' };

/** Fails the step and the run; a held claim becomes `failed`, so a later run may act on its key. */
export async function failRun(
  journal: StepJournal,
  nodeId: string,
  message: string,
  options: { claim?: HeldClaim; details?: Record<string, unknown> } = {},
): Promise<RunEnded> {
  const { claim, details } = options;
  journal.event('step.failed', nodeId, { message, ...details });
  journal.event('run.failed', null, { message, nodeId });
  await journal.flush({
    claim: claim ? { ...claim, status: 'failed', error: message } : undefined,
    ending: { status: 'failed', error: message, failedNode: nodeId },
  });
  return ENDED;
}

/**
 * Marks the step uncertain and the run `needs_review`. With a fence, this worker holds
 * the claim and marks it uncertain too; without one, the claim already is.
 */
export async function stopForReview(
  journal: StepJournal,
  nodeId: string,
  message: string,
  claim: { scope: string; key: string; fence?: number },
  details: Record<string, unknown> = {},
): Promise<RunEnded> {
  const { scope, key, fence } = claim;
  journal.checkpoint(nodeId, 'uncertain', null, { scope, key });
  journal.event('step.uncertain', nodeId, { key, scope, message, ...details });
  journal.event('run.needs_review', null, { nodeId, message });
  await journal.flush({
    claim: fence === undefined ? undefined : { scope, key, fence, status: 'uncertain', error: message },
    ending: { status: 'needs_review', error: message },
  });
  return ENDED;
}
