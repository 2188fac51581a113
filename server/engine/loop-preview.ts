/**
 * What a rerun would do inside a For each step that has not finished, item by item, from
 * the same records the loop itself reads (for-each.ts): an item's step with a checkpoint
 * (`send@37`) is skipped; a side-effect step whose key, rendered with its item, is already
 * done comes back as a duplicate; the rest act. The answer is one line per body step with
 * its items counted, so "items 1–36 skipped, 37 acts again, 63 run for the first time"
 * reads as one sentence, not a hundred rows. Like the rest of a preview it reads nothing
 * itself: the claims come batched through the preview's lookup.
 */
import { renderValue, type RenderContext } from '../../core/templates/render.ts';
import { previewClaimReference, type ClaimReference } from './claim-reference.ts';
import type { PlannedStep } from './flow/planned-step.ts';
import type { FlowPlan } from './flow-plan.ts';
import type { PreviewAction, PreviewLookup, PreviewStep } from './rerun-preview.ts';
import type { CheckpointRow, RunRow } from './types.ts';

export type ItemCounts = Record<PreviewAction, number>;

export interface LoopPreviewInput {
  run: RunRow;
  plan: FlowPlan;
  loop: PlannedStep;
  /** The run's render context so far: the trigger and the steps before the loop. */
  context: RenderContext;
  /** The checkpoints the rerun keeps, by step (item steps are `send@37`). */
  checkpoints: ReadonlyMap<string, CheckpointRow>;
  /** Steps (item steps too) that began in this run before. */
  began: ReadonlySet<string>;
}

interface ItemStepPlan {
  step: PlannedStep;
  position: number;
  ranBefore: boolean;
  checkpoint: CheckpointRow | undefined;
  ref: ClaimReference | null;
}

/** One preview line per step of the loop's body, each counting its items; the loop's own line first. No statements: claims come from the lookup (rerun-preview.ts). */
export function planLoopItems(input: LoopPreviewInput, lookup: PreviewLookup): PreviewStep[] {
  const { run, plan, loop, context, checkpoints, began } = input;
  const body = plan.bodies.get(loop.id);
  const loopLine = (reason: string): PreviewStep => ({ nodeId: loop.id, label: loop.label, sideEffect: false, action: 'act', ranBefore: began.has(loop.id), reason });
  if (!body) return [loopLine('Runs, but has no steps inside it.')];
  let items: unknown;
  try {
    items = renderValue(String(loop.data.items ?? ''), context);
  } catch {
    items = undefined;
  }
  if (!Array.isArray(items)) {
    return [loopLine('Runs its items once the steps before it have given it a list; what each item does is known only then.')];
  }

  const plans: ItemStepPlan[] = [];
  for (let index = 0; index < items.length; index++) {
    const position = index + 1;
    // Each item's steps see that item's earlier results, as they do when the loop runs.
    const itemContext: RenderContext = { ...context, steps: { ...context.steps }, item: items[index], loop: { index: position, count: items.length } };
    for (const step of body.order) {
      const itemStepId = `${step.id}@${position}`;
      const checkpoint = checkpoints.get(itemStepId);
      if (checkpoint?.status === 'succeeded') itemContext.steps[step.id] = { output: checkpoint.output };
      const ref = step.sideEffect && !checkpoint && step.problem === undefined ? previewClaimReference(step, itemContext, run) : null;
      plans.push({ step, position, ranBefore: began.has(itemStepId) || checkpoint !== undefined, checkpoint, ref });
    }
  }

  const lines = [loopLine(`Runs again over its ${items.length.toLocaleString('en')} items; each item's finished steps are skipped.`)];
  for (const step of body.order) {
    const counts: ItemCounts = { skip: 0, deduplicate: 0, act: 0, review: 0 };
    let again = 0;
    let unknownKeys = 0;
    for (const item of plans) {
      if (item.step !== step) continue;
      const action = itemAction(item, lookup);
      counts[action]++;
      if (action === 'act' && item.ranBefore) again++;
      if (action === 'act' && step.sideEffect && !item.ref) unknownKeys++;
    }
    lines.push({
      nodeId: step.id,
      label: `${step.label} (each item)`,
      sideEffect: step.sideEffect,
      action: mostTelling(counts),
      ranBefore: plans.some((item) => item.step === step && item.ranBefore),
      reason: itemSentence(step, counts, again, unknownKeys),
      items: counts,
    });
  }
  return lines;
}

function itemAction(item: ItemStepPlan, lookup: PreviewLookup): PreviewAction {
  const { checkpoint, ref } = item;
  if (checkpoint?.status === 'succeeded' || checkpoint?.status === 'skipped') return 'skip';
  if (checkpoint?.status === 'uncertain') return 'review';
  if (!item.step.sideEffect || !ref) return 'act';
  const claim = lookup.claim(ref.scope, ref.key);
  // A claim past its time to live is won afresh, as at the top level.
  if (claim?.status === 'succeeded' && claim.expiresAt >= lookup.now) return 'deduplicate';
  if (claim?.status === 'uncertain') return 'review';
  return 'act';
}

/** The line's headline action: a decision first, then acting, then a stopped duplicate. */
function mostTelling(counts: ItemCounts): PreviewAction {
  if (counts.review > 0) return 'review';
  if (counts.act > 0) return 'act';
  if (counts.deduplicate > 0) return 'deduplicate';
  return 'skip';
}

function itemSentence(step: PlannedStep, counts: ItemCounts, again: number, unknownKeys: number): string {
  const items = (count: number) => `${count.toLocaleString('en')} item${count === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (counts.skip) parts.push(`${items(counts.skip)} skipped: already finished`);
  if (counts.deduplicate) parts.push(`${items(counts.deduplicate)} stopped as duplicates: their keys were already done`);
  if (counts.review) parts.push(`${items(counts.review)} waiting for your decision`);
  const first = counts.act - again;
  if (again) parts.push(`${items(again)} ${step.sideEffect ? 'act again' : 'run again'}`);
  if (first) parts.push(`${items(first)} run for the first time`);
  if (parts.length === 0) return 'No items.';
  const sentence = `${parts.join('; ')}.`;
  return unknownKeys ? `${sentence} ${items(unknownKeys)} have keys that depend on earlier steps, known only when the rerun gets there.` : sentence;
}
