/**
 * What a rerun would do, step by step, before anyone clicks: checkpointed steps are
 * skipped; side-effect steps whose key is already done come back as duplicates; the rest
 * act. Keys are rendered from the run's own data where they can be; a key that depends on
 * a step that has not run yet is only known when the rerun reaches it.
 */
import { readClaim } from '../store/claims.ts';
import type { Db } from '../store/db.ts';
import { loadCheckpoints } from '../store/timeline.ts';
import { isSideEffectStep, type FlowNode } from './flow/document.ts';
import type { FlowPlan } from './flow-plan.ts';
import { describeSkip, skipRecordOf } from './review-decisions.ts';
import { triggerContext } from './run-executor.ts';
import { renderTemplate, type RenderContext } from './templates/render.ts';
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

const label = (node: FlowNode) => (typeof node.data.label === 'string' && node.data.label ? node.data.label : node.id);

function renderKey(node: FlowNode, context: RenderContext, flowId: string): { key: string; scope: string } | null {
  try {
    const key = renderTemplate(String(node.data.key ?? ''), context);
    const scope = typeof node.data.keyScope === 'string' && node.data.keyScope ? renderTemplate(node.data.keyScope, context) : `${flowId}:${node.id}`;
    return { key, scope };
  } catch {
    return null;
  }
}

export async function previewRerun(db: Db, run: RunRow, plan: FlowPlan): Promise<RerunPreview> {
  const checkpoints = new Map<string, CheckpointRow>((await loadCheckpoints(db, run.id)).map((row) => [row.nodeId, row]));
  const context: RenderContext = { trigger: triggerContext(run), steps: {} };
  const steps: PreviewStep[] = [];
  for (const node of plan.order) {
    if (node.id === plan.trigger?.id) {
      context.steps[node.id] = { output: context.trigger };
      continue;
    }
    const sideEffect = isSideEffectStep(node);
    const checkpoint = checkpoints.get(node.id);
    if (checkpoint?.status === 'succeeded' || checkpoint?.status === 'skipped') {
      context.steps[node.id] = { output: checkpoint.output };
      const why = checkpoint.status === 'skipped' ? 'it was skipped before and stays skipped' : `it already finished in attempt ${checkpoint.attempt}`;
      steps.push({ nodeId: node.id, label: label(node), sideEffect, action: 'skip', reason: `Skipped: ${why}.` });
      continue;
    }
    if (!sideEffect) {
      steps.push({ nodeId: node.id, label: label(node), sideEffect, action: 'act', reason: 'Runs again: it changes nothing outside Onceflow, so repeating it is harmless.' });
      continue;
    }
    if (checkpoint?.status === 'uncertain') {
      const claim = checkpoint.keyScope && checkpoint.key ? await readClaim(db, checkpoint.keyScope, checkpoint.key) : undefined;
      const skipped = skipRecordOf(claim?.output);
      const why = skipped ? describeSkip(skipped) : 'it is not known whether this happened.';
      steps.push({ nodeId: node.id, label: label(node), sideEffect, action: 'review', reason: `Waits for your decision: ${why}` });
      continue;
    }
    const ref = renderKey(node, context, run.flowId);
    if (!ref) {
      steps.push({ nodeId: node.id, label: label(node), sideEffect, action: 'act', reason: 'Acts if its key is new: the key depends on earlier steps, so it is known only when the rerun gets there.' });
      continue;
    }
    const claim = await readClaim(db, ref.scope, ref.key);
    if (claim?.status === 'succeeded') {
      const by = claim.ownerRunId === run.id ? 'this run' : `run ${claim.ownerRunId}`;
      steps.push({ nodeId: node.id, label: label(node), sideEffect, action: 'deduplicate', reason: `Duplicate stopped: key ${ref.key} was already done by ${by}; its result is reused and nothing is sent again.` });
    } else if (claim?.status === 'uncertain') {
      const skipped = skipRecordOf(claim.output);
      const why = skipped ? describeSkip(skipped) : `it is not known whether key ${ref.key} was done.`;
      steps.push({ nodeId: node.id, label: label(node), sideEffect, action: 'review', reason: `Waits for a decision: ${why}` });
    } else {
      steps.push({ nodeId: node.id, label: label(node), sideEffect, action: 'act', reason: `Acts: nothing was done yet with key ${ref.key}${claim?.status === 'failed' ? ' (the last try was refused)' : ''}.` });
    }
  }
  const counts: Record<PreviewAction, number> = { skip: 0, deduplicate: 0, act: 0, review: 0 };
  for (const step of steps) if (step.action === 'skip' || step.sideEffect) counts[step.action]++;
  return { steps, counts };
}
