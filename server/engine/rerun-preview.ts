/**
 * What a rerun would do, step by step, before anyone clicks: checkpointed steps are
 * skipped; side-effect steps whose key is already done come back as duplicates; the rest
 * act. Keys are rendered from the run's own data where they can be; a key that depends on
 * a step that has not run yet is only known when the rerun reaches it. Every phrase says
 * what happened: a step that never began in this run "runs for the first time", only one
 * that began before "acts again", and a checkpoint a person's decision wrote says so.
 */
import { readClaim } from '../store/claims.ts';
import type { Db } from '../store/db.ts';
import { readStepTraces } from '../store/run-page.ts';
import { loadCheckpoints } from '../store/timeline.ts';
import { claimReference, type ClaimReference } from './claim-reference.ts';
import type { TypedStep } from './flow/planned-step.ts';
import type { FlowPlan } from './flow-plan.ts';
import { describeSkip, skipRecordOf } from './review-decisions.ts';
import { triggerContext } from './run-executor.ts';
import { renderTemplate, type RenderContext } from '../../core/templates/render.ts';
import type { CheckpointRow, RunRow } from './types.ts';

export type PreviewAction = 'skip' | 'deduplicate' | 'act' | 'review';

export interface PreviewStep {
  nodeId: string;
  label: string;
  sideEffect: boolean;
  action: PreviewAction;
  /** Whether the step began in this run before; an acting step that did not runs for the first time. */
  ranBefore: boolean;
  reason: string;
}

export interface RerunPreview {
  steps: PreviewStep[];
  counts: Record<PreviewAction, number>;
}

/** The step's claim as far as the run's data can render it; null when it needs steps not run yet. */
function renderClaim(step: TypedStep, context: RenderContext, flowId: string): ClaimReference | null {
  try {
    return claimReference(step, flowId, (template) => renderTemplate(template, context));
  } catch {
    return null;
  }
}

export async function previewRerun(db: Db, run: RunRow, plan: FlowPlan): Promise<RerunPreview> {
  const checkpoints = new Map<string, CheckpointRow>((await loadCheckpoints(db, run.id)).map((row) => [row.nodeId, row]));
  const began = new Set((await readStepTraces(db, run.id)).filter((trace) => trace.started > 0).map((trace) => trace.nodeId));
  const context: RenderContext = { trigger: triggerContext(run), steps: {} };
  const steps: PreviewStep[] = [];
  for (const step of plan.order) {
    if (step.id === plan.trigger?.id) {
      context.steps[step.id] = { output: context.trigger };
      continue;
    }
    const { sideEffect } = step;
    const checkpoint = checkpoints.get(step.id);
    const ranBefore = began.has(step.id) || checkpoint !== undefined;
    const show = (action: PreviewAction, reason: string) => steps.push({ nodeId: step.id, label: step.label, sideEffect, action, ranBefore, reason });
    // The words for a step that will act, by whether it acted in this run before.
    const acts = ranBefore ? 'Acts again' : 'Runs for the first time';
    if (checkpoint?.status === 'succeeded' || checkpoint?.status === 'skipped') {
      context.steps[step.id] = { output: checkpoint.output };
      show('skip', `Skipped: ${checkpointWords(checkpoint)}.`);
      continue;
    }
    if (!sideEffect) {
      show('act', ranBefore
        ? 'Runs again: it changes nothing outside Onceflow, so repeating it is harmless.'
        : 'Runs for the first time: this run did not get to it before. It changes nothing outside Onceflow.');
      continue;
    }
    if (checkpoint?.status === 'uncertain') {
      const claim = checkpoint.keyScope && checkpoint.key ? await readClaim(db, checkpoint.keyScope, checkpoint.key) : undefined;
      const skipped = skipRecordOf(claim?.output);
      show('review', `Waits for your decision: ${skipped ? describeSkip(skipped) : 'it is not known whether this happened.'}`);
      continue;
    }
    if (step.problem !== undefined) {
      show('act', `Cannot run, so the rerun stops here: ${step.problem}`);
      continue;
    }
    const ref = renderClaim(step, context, run.flowId);
    if (!ref) {
      show('act', `${acts} if its key is new: the key depends on earlier steps, so it is known only when the rerun gets there.`);
      continue;
    }
    const claim = await readClaim(db, ref.scope, ref.key);
    if (claim?.status === 'succeeded') {
      const by = claim.ownerRunId === run.id ? 'this run' : `run ${claim.ownerRunId}`;
      show('deduplicate', `Duplicate stopped: key ${ref.key} was already done by ${by}; its result is reused and nothing is sent again.`);
    } else if (claim?.status === 'uncertain') {
      const skipped = skipRecordOf(claim.output);
      show('review', `Waits for a decision: ${skipped ? describeSkip(skipped) : `it is not known whether key ${ref.key} was done.`}`);
    } else {
      const why = claim?.status === 'failed' ? ' (the last try was refused)' : ranBefore ? '' : '; this run did not get to it before';
      show('act', `${acts}: nothing was done yet with key ${ref.key}${why}.`);
    }
  }
  const counts: Record<PreviewAction, number> = { skip: 0, deduplicate: 0, act: 0, review: 0 };
  for (const step of steps) if (step.action === 'skip' || step.sideEffect) counts[step.action]++;
  return { steps, counts };
}

/** Why a checkpointed step is skipped: it finished, a person recorded it as done, or it was skipped. */
function checkpointWords(checkpoint: CheckpointRow): string {
  const output = (checkpoint.output ?? {}) as { resolved?: unknown; reason?: unknown };
  if (checkpoint.status === 'skipped') {
    return output.reason === 'review' ? 'your decision skipped it, so it stays skipped' : 'it was skipped before and stays skipped';
  }
  if (output.resolved === 'happened') return `recorded as done by your decision (attempt ${checkpoint.attempt}) that it happened`;
  return `it already finished in attempt ${checkpoint.attempt}`;
}
