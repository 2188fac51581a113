/**
 * What a rerun would do, step by step, before anyone clicks: checkpointed steps are
 * skipped; side-effect steps whose key is already done come back as duplicates; the rest
 * act. Keys are rendered from the run's own data where they can be; a key that depends on
 * a step that has not run yet is only known when the rerun reaches it. Every phrase says
 * what happened: a step that never began in this run "runs for the first time", only one
 * that began before "acts again", and a checkpoint a person's decision wrote says so.
 *
 * On another version (version-choice.ts) the finished steps' checkpoints are forgotten, so
 * plain steps run again and side-effect steps meet their claim: an unchanged key is a
 * duplicate, a changed key acts again — a warning when the step had acted before.
 *
 * A key past its time to live is forgotten (key-expiry.ts): the claim is free again, so
 * the step acts again, and the preview says when the key expired.
 */
import { readClaim } from '../store/claims.ts';
import { FLOW_RUN } from '../../core/step-kinds.ts';
import { childRunIdOf } from './child-views.ts';
import { getRun } from '../store/runs.ts';
import type { Db } from '../store/db.ts';
import { readStepTraces } from '../store/run-page.ts';
import { loadCheckpoints } from '../store/timeline.ts';
import { claimReference, type ClaimReference } from './claim-reference.ts';
import { expiredKeysAmong, expiryWords, dayWords } from './key-expiry.ts';
import type { TypedStep } from './flow/planned-step.ts';
import type { FlowPlan } from './flow-plan.ts';
import { describeSkip, skipRecordOf } from './review-decisions.ts';
import { keptOnSwitch } from './version-choice.ts';
import { previewLoopItems } from './loop-preview.ts';
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
  /** A side-effect step that acted before and acts again because its rendered key changed. */
  keyChange?: { from: string; to: string };
  /** The step is not in the version the run used. */
  newInVersion?: boolean;
  /** A step inside a For each: what the rerun does with it, counted over the loop's items. */
  items?: Record<PreviewAction, number>;
  /** A side-effect step whose key was done before and has expired since, so it acts again. */
  expired?: PreviewExpiry;
}

/** The expired key an acting step meets: when it expired, and who had done the work when. */
export interface PreviewExpiry {
  key: string;
  expiredAt: number;
  doneAt: number;
  runId: string;
  /** The run that did the work, while retention keeps it; null once it is deleted. */
  runSeq: number | null;
}

/** The version a rerun moves to, when it moves. */
export interface PreviewSwitch {
  previousPlan: FlowPlan | null;
  fromVersion: number | null;
  toVersion: number | null;
}

export interface RerunPreview {
  steps: PreviewStep[];
  counts: Record<PreviewAction, number>;
  /** Steps the run had that the new version removed: they will not run. */
  removed: { nodeId: string; label: string; reason: string }[];
  /** Steps that acted before and act again with a changed key: the rerun asks for a second click. */
  warnings: number;
  /** Side-effect steps that act again because their key expired (each has `expired`). */
  expired?: number;
}

/** Which of these (scope, key) pairs expired, in one query: for previews summed over many runs. */
export { expiredKeysAmong, expiredKeyId } from './key-expiry.ts';

/** The step's claim as far as the run's data can render it; null when it needs steps not run yet. */
function renderClaim(step: TypedStep, context: RenderContext, run: RunRow): ClaimReference | null {
  try {
    return claimReference(step, run, (template) => renderTemplate(template, context));
  } catch {
    return null;
  }
}

export async function previewRerun(db: Db, run: RunRow, plan: FlowPlan, switching?: PreviewSwitch, options: { now?: number } = {}): Promise<RerunPreview> {
  const now = options.now ?? Date.now();
  const allCheckpoints = await loadCheckpoints(db, run.id);
  // What the run had done, and what of it the next attempt keeps (all of it on the same version).
  const earlier = new Map<string, CheckpointRow>(allCheckpoints.map((row) => [row.nodeId, row]));
  const stepTypes = new Map(plan.order.map((step) => [step.id, step.type]));
  const checkpoints = new Map<string, CheckpointRow>(allCheckpoints
    .filter((row) => !switching || keptOnSwitch(row, stepTypes.get(row.nodeId)))
    .map((row) => [row.nodeId, row]));
  const previousIds = switching?.previousPlan ? new Set(switching.previousPlan.order.map((step) => step.id)) : null;
  const inNew = switching?.toVersion !== null && switching?.toVersion !== undefined ? ` in v${switching.toVersion}` : ' in this version';
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
    const before = earlier.get(step.id);
    const ranBefore = began.has(step.id) || before !== undefined;
    const newInVersion = previousIds !== null && !previousIds.has(step.id);
    const show = (action: PreviewAction, reason: string, extra: Partial<PreviewStep> = {}) =>
      steps.push({ nodeId: step.id, label: step.label, sideEffect, action, ranBefore, reason, ...(newInVersion ? { newInVersion } : {}), ...extra });
    // A forgotten checkpoint's output is the best guess at what the step gives again, for rendering later keys.
    if (!checkpoint && before?.status === 'succeeded') context.steps[step.id] = { output: before.output };
    if (newInVersion) {
      if (!sideEffect) {
        show('act', `Runs for the first time: new${inNew}. It changes nothing outside Onceflow.`);
        continue;
      }
    }
    // The words for a step that will act, by whether it acted in this run before.
    const acts = ranBefore ? 'Acts again' : 'Runs for the first time';
    if (checkpoint?.status === 'succeeded' || checkpoint?.status === 'skipped') {
      context.steps[step.id] = { output: checkpoint.output };
      show('skip', `Skipped: ${checkpointWords(checkpoint)}.`);
      continue;
    }
    if (step.type === 'for.each') {
      steps.push(...await previewLoopItems({ db, run, plan, loop: step, context, checkpoints, began }));
      continue;
    }
    if (!sideEffect) {
      show('act', switching && ranBefore
        ? `Runs again${inNew}: it changes nothing outside Onceflow, so repeating it is harmless.`
        : ranBefore
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
    const ref = renderClaim(step, context, run);
    if (!ref) {
      show('act', `${acts} if its key is new: the key depends on earlier steps, so it is known only when the rerun gets there.`);
      continue;
    }
    const stored = await readClaim(db, ref.scope, ref.key);
    // A claim past its time to live is won afresh by the next claimant, as if absent.
    const claim = stored && (stored.expiresAt >= now || stored.status === 'in_progress') ? stored : undefined;
    const expiry = claim ? undefined : (await expiredKeysAmong(db, [ref], now)).values().next().value;
    const actedWith = before?.status === 'succeeded' ? before.key : null;
    if (expiry) {
      const owner = expiry.runId === run.id ? run : await getRun(db, expiry.runId);
      const by = expiry.runId === run.id ? 'this run' : owner ? `run #${owner.seq}` : 'a run no longer kept';
      show('act', `Acts again: ${expiryWords(ref.key, expiry.expiredAt, now)} (it was done by ${by} on ${dayWords(expiry.doneAt, now)}).`, {
        expired: { key: ref.key, expiredAt: expiry.expiredAt, doneAt: expiry.doneAt, runId: expiry.runId, runSeq: owner?.seq ?? null },
      });
    } else if (newInVersion && claim?.status !== 'succeeded') {
      show('act', `Runs for the first time: new${inNew}; nothing was done yet with key ${ref.key}.`);
    } else if (actedWith && actedWith !== ref.key && claim?.status !== 'succeeded') {
      show('act', `Acts again: its key changed from ${actedWith} to ${ref.key}, so the work is done once more under the new key.`, { keyChange: { from: actedWith, to: ref.key } });
    } else if (claim?.status === 'succeeded') {
      const owner = claim.ownerRunId === run.id ? run : await getRun(db, claim.ownerRunId);
      const by = claim.ownerRunId === run.id ? `this run (#${run.seq})` : owner ? `run #${owner.seq}` : 'an earlier run no longer kept (retention)';
      show('deduplicate', `Duplicate stopped: key ${ref.key} was already done by ${by}; its result is reused and nothing is sent again.`);
    } else if (claim?.status === 'uncertain') {
      const skipped = skipRecordOf(claim.output);
      show('review', `Waits for a decision: ${skipped ? describeSkip(skipped) : `it is not known whether key ${ref.key} was done.`}`);
    } else if (step.type === FLOW_RUN.type && claim?.status === 'in_progress' && childRunIdOf(claim.output) !== undefined) {
      // The key started a child run: a rerun follows that run, never starts another.
      const child = await getRun(db, childRunIdOf(claim.output)!);
      const named = child ? `child run #${child.seq}` : 'the child run its key started';
      if (child?.status === 'failed') show('act', `Reruns ${named} from its checkpoints: its key started that run, so no second child is started.`);
      else show('deduplicate', `Waits for ${named}: its key started that run, so no second child is started.`);
    } else {
      const why = claim?.status === 'failed' ? ' (the last try was refused)' : ranBefore ? '' : '; this run did not get to it before';
      show('act', `${acts}: nothing was done yet with key ${ref.key}${why}.`);
    }
  }
  const counts: Record<PreviewAction, number> = { skip: 0, deduplicate: 0, act: 0, review: 0 };
  for (const step of steps) {
    if (step.items) {
      // A step inside a loop counts once per item, as it will act (or not) once per item.
      counts.skip += step.items.skip;
      if (step.sideEffect) for (const action of ['deduplicate', 'act', 'review'] as const) counts[action] += step.items[action];
    } else if (step.action === 'skip' || step.sideEffect) counts[step.action]++;
  }
  const kept = new Set(plan.order.map((step) => step.id));
  const removed = (switching?.previousPlan?.order ?? [])
    .filter((step) => step.id !== switching?.previousPlan?.trigger?.id && !kept.has(step.id))
    .map((step) => ({ nodeId: step.id, label: step.label, reason: `Will not run: removed${inNew}.` }));
  return { steps, counts, removed, warnings: steps.filter((step) => step.keyChange).length, expired: steps.filter((step) => step.expired).length };
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
