/**
 * What a rerun would do, step by step, before anyone clicks: checkpointed steps are
 * skipped; side-effect steps whose key is already done come back as duplicates; the rest
 * act. Keys are rendered from the run's own data where they can be; a key that depends on
 * a step that has not run yet is only known when the rerun reaches it.
 */
import { readClaim } from '../store/claims.ts';
import type { Db } from '../store/db.ts';
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
  const context: RenderContext = { trigger: triggerContext(run), steps: {} };
  const steps: PreviewStep[] = [];
  for (const step of plan.order) {
    if (step.id === plan.trigger?.id) {
      context.steps[step.id] = { output: context.trigger };
      continue;
    }
    const { sideEffect } = step;
    const show = (action: PreviewAction, reason: string) => steps.push({ nodeId: step.id, label: step.label, sideEffect, action, reason });
    const checkpoint = checkpoints.get(step.id);
    if (checkpoint?.status === 'succeeded' || checkpoint?.status === 'skipped') {
      context.steps[step.id] = { output: checkpoint.output };
      const why = checkpoint.status === 'skipped' ? 'it was skipped before and stays skipped' : `it already finished in attempt ${checkpoint.attempt}`;
      show('skip', `Skipped: ${why}.`);
      continue;
    }
    if (!sideEffect) {
      show('act', 'Runs again: it changes nothing outside Onceflow, so repeating it is harmless.');
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
      show('act', 'Acts if its key is new: the key depends on earlier steps, so it is known only when the rerun gets there.');
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
      show('act', `Acts: nothing was done yet with key ${ref.key}${claim?.status === 'failed' ? ' (the last try was refused)' : ''}.`);
    }
  }
  const counts: Record<PreviewAction, number> = { skip: 0, deduplicate: 0, act: 0, review: 0 };
  for (const step of steps) if (step.action === 'skip' || step.sideEffect) counts[step.action]++;
  return { steps, counts };
}
