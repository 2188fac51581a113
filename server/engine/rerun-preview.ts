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
 * duplicate, a changed key acts again — a warning when the step had acted before. A key
 * that expired (key-expiry.ts) acts again, and says when it expired.
 *
 * One rule makes every preview: `planPreview` plans a run from facts already read, and
 * `previewMany` reads those facts for any number of runs in a few batched statements (one
 * run's preview, or a recovery's sum over thousands).
 */
import { FLOW_RUN } from '../../core/step-kinds.ts';
import { readClaims } from '../store/claims.ts';
import type { Db } from '../store/db.ts';
import { runHeads } from '../store/operations.ts';
import { readStepTraces } from '../store/run-page.ts';
import { loadCheckpoints } from '../store/timeline.ts';
import { childRunIdOf } from './child-views.ts';
import { previewClaimReference } from './claim-reference.ts';
import type { FlowPlan } from './flow-plan.ts';
import { dayWords, expiredKeysAmong, type ExpiredKeyRow } from './key-expiry.ts';
import { expiredStepReason } from '../../core/review-words.ts';
import { planLoopItems } from './loop-preview.ts';
import { describeSkip, skipRecordOf, type SkipRecord } from './review-decisions.ts';
import { keptOnSwitch } from './version-choice.ts';
import { triggerContext } from './run-executor.ts';
import type { RenderContext } from '../../core/templates/render.ts';
import type { ClaimRef } from '../store/types.ts';
import type { CheckpointRow, ClaimRow, RunRow, RunStatus } from './types.ts';

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
  /** The key of a step that acts again because its key expired (with or without a record of when). */
  expiredKey?: string;
  /** A step that waits for a decision because an earlier run skipped it. */
  skipped?: PreviewSkip;
}

/**
 * The expired key an acting step meets: when it expired, and who had done the work when.
 * The step's reason says the same in words, its days in UTC (key-expiry.ts); a page words
 * the moments in its reader's zone from these.
 */
export interface PreviewExpiry {
  key: string;
  expiredAt: number;
  doneAt: number;
  runId: string;
  /** The run that did the work, while retention keeps it; null once it is deleted. */
  runSeq: number | null;
  /** Who did the work, in the reason's words: "this run", "run #12" or "a run no longer kept". */
  doneBy: string;
}

/** An earlier run's Skip that leaves the step's key uncertain (review-decisions.ts), for a page to word in its reader's zone. */
export interface PreviewSkip {
  runSeq: number;
  at: number;
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
  /** Side-effect steps that act again because their key expired. */
  expired: number;
}

/** What one run's preview is made from; many runs' facts are read in a few batched statements. */
export interface PreviewInput {
  run: RunRow;
  plan: FlowPlan;
  switching?: PreviewSwitch;
  /** Every checkpoint of the run. */
  checkpoints: readonly CheckpointRow[];
  /** The steps that began in this run before. */
  began: ReadonlySet<string>;
  /** Checkpoints that recorded keys as done (a replay's: the replayed run's), to tell an expired key. */
  doneBefore?: readonly CheckpointRow[];
}

/** The facts a preview looks up: claims, expired keys, and the runs it names. */
export interface PreviewLookup {
  now: number;
  claim(scope: string, key: string): ClaimRow | undefined;
  /** What was kept of a key done and forgotten since (store/expired-keys.ts). */
  expired(scope: string, key: string): ExpiredKeyRow | undefined;
  /** A run's number and status while it is kept (claim owners, child runs). */
  run(runId: string): { seq: number; status: RunStatus } | undefined;
}

/** Which of these (scope, key) pairs expired, in one query: for previews summed over many runs. */
export { expiredKeysAmong, expiredKeyId } from './key-expiry.ts';

/** What a rerun of one run would do, read from the database. */
export async function previewRerun(
  db: Db, run: RunRow, plan: FlowPlan, switching?: PreviewSwitch, options: { doneBefore?: readonly CheckpointRow[]; now?: number } = {},
): Promise<RerunPreview> {
  const [checkpoints, traces] = await Promise.all([loadCheckpoints(db, run.id), readStepTraces(db, run.id)]);
  const began = new Set(traces.filter((trace) => trace.started > 0).map((trace) => trace.nodeId));
  const input: PreviewInput = { run, plan, ...(switching ? { switching } : {}), checkpoints, began, ...(options.doneBefore ? { doneBefore: options.doneBefore } : {}) };
  const [preview] = await previewMany(db, [input], options.now);
  return preview!;
}

const refText = (scope: string, key: string) => `${scope}\n${key}`;
/** Claims per statement: well inside every driver's parameter size. */
const CHUNK = 1000;

/** A claim past its time to live is won afresh by the next claimant, as if absent. */
// A claim in progress or uncertain never ages out (store/expired-keys.ts).
const liveClaim = (claim: ClaimRow | undefined, now: number) => (claim && (claim.expiresAt >= now || claim.status === 'in_progress' || claim.status === 'uncertain') ? claim : undefined);

/**
 * The previews of many runs with a fixed number of statements per 1,000 runs: each run is
 * planned once with nothing known, to learn which keys it looks at (rendering never
 * depends on a claim); those claims, the expired records of keys without a live claim, and
 * the runs they name are read in batches; then each run is planned again with them.
 */
export async function previewMany(db: Db, inputs: readonly PreviewInput[], now = Date.now()): Promise<RerunPreview[]> {
  const refs = new Map<string, ClaimRef>();
  const recording: PreviewLookup = {
    now,
    claim(scope, key) {
      refs.set(refText(scope, key), { scope, key });
      return undefined;
    },
    expired: () => undefined,
    run: () => undefined,
  };
  for (const input of inputs) planPreview(input, recording);
  const all = [...refs.values()];
  const claims = new Map<string, ClaimRow>();
  for (let start = 0; start < all.length; start += CHUNK) {
    for (const claim of await readClaims(db, all.slice(start, start + CHUNK))) claims.set(refText(claim.scope, claim.key), claim);
  }
  const unclaimed = all.filter((ref) => !liveClaim(claims.get(refText(ref.scope, ref.key)), now));
  const expired = new Map<string, ExpiredKeyRow>();
  for (let start = 0; start < unclaimed.length; start += CHUNK) {
    for (const row of (await expiredKeysAmong(db, unclaimed.slice(start, start + CHUNK), now)).values()) expired.set(refText(row.scope, row.key), row);
  }
  const named = new Set<string>();
  for (const claim of claims.values()) {
    named.add(claim.ownerRunId);
    const child = childRunIdOf(claim.output);
    if (child) named.add(child);
  }
  for (const row of expired.values()) named.add(row.runId);
  const heads = await runHeads(db, [...named]);
  const lookup: PreviewLookup = {
    now,
    claim: (scope, key) => claims.get(refText(scope, key)),
    expired: (scope, key) => expired.get(refText(scope, key)),
    run: (runId) => heads.get(runId),
  };
  return inputs.map((input) => planPreview(input, lookup));
}

/** One run's preview from facts already read: no statements. */
export function planPreview({ run, plan, switching, checkpoints: allCheckpoints, began, doneBefore }: PreviewInput, lookup: PreviewLookup): RerunPreview {
  const { now } = lookup;
  // What the run had done, and what of it the next attempt keeps (all of it on the same version).
  const earlier = new Map<string, CheckpointRow>(allCheckpoints.map((row) => [row.nodeId, row]));
  const stepTypes = new Map(plan.order.map((step) => [step.id, step.type]));
  const checkpoints = new Map<string, CheckpointRow>(allCheckpoints
    .filter((row) => !switching || keptOnSwitch(row, stepTypes.get(row.nodeId)))
    .map((row) => [row.nodeId, row]));
  const previousIds = switching?.previousPlan ? new Set(switching.previousPlan.order.map((step) => step.id)) : null;
  const inNew = switching?.toVersion !== null && switching?.toVersion !== undefined ? ` in v${switching.toVersion}` : ' in this version';
  // Keys a checkpoint recorded as done: with no claim left for one and no record, it expired all the same.
  const recordedDone = new Set([...allCheckpoints, ...(doneBefore ?? [])]
    .filter((row) => row.status === 'succeeded' && row.keyScope && row.key)
    .map((row) => refText(row.keyScope!, row.key!)));
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
      steps.push(...planLoopItems({ run, plan, loop: step, context, checkpoints, began }, lookup));
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
      const claim = checkpoint.keyScope && checkpoint.key ? lookup.claim(checkpoint.keyScope, checkpoint.key) : undefined;
      const skipped = skipRecordOf(claim?.output);
      show('review', `Waits for your decision: ${skipped ? describeSkip(skipped, now) : 'it is not known whether this happened.'}`, skipShown(skipped));
      continue;
    }
    if (step.problem !== undefined) {
      show('act', `Cannot run, so the rerun stops here: ${step.problem}`);
      continue;
    }
    const ref = previewClaimReference(step, context, run);
    if (!ref) {
      show('act', `${acts} if its key is new: the key depends on earlier steps, so it is known only when the rerun gets there.`);
      continue;
    }
    const claim = liveClaim(lookup.claim(ref.scope, ref.key), now);
    const expiry = claim ? undefined : lookup.expired(ref.scope, ref.key);
    const actedWith = before?.status === 'succeeded' ? before.key : null;
    const childId = step.type === FLOW_RUN.type && claim?.status === 'in_progress' ? childRunIdOf(claim.output) : undefined;
    if (expiry) {
      const ownerSeq = expiry.runId === run.id ? run.seq : lookup.run(expiry.runId)?.seq;
      const by = expiry.runId === run.id ? 'this run' : ownerSeq !== undefined ? `run #${ownerSeq}` : 'a run no longer kept';
      show('act', `Acts again: ${expiredStepReason(ref.key, dayWords(expiry.expiredAt, now), by, dayWords(expiry.doneAt, now))}`, {
        expired: { key: ref.key, expiredAt: expiry.expiredAt, doneAt: expiry.doneAt, runId: expiry.runId, runSeq: ownerSeq ?? null, doneBy: by },
        expiredKey: ref.key,
      });
    } else if (newInVersion && claim?.status !== 'succeeded') {
      show('act', `Runs for the first time: new${inNew}; nothing was done yet with key ${ref.key}.`);
    } else if (actedWith && actedWith !== ref.key && claim?.status !== 'succeeded') {
      show('act', `Acts again: its key changed from ${actedWith} to ${ref.key}, so the work is done once more under the new key.`, { keyChange: { from: actedWith, to: ref.key } });
    } else if (claim?.status === 'succeeded') {
      const ownerSeq = claim.ownerRunId === run.id ? run.seq : lookup.run(claim.ownerRunId)?.seq;
      const by = claim.ownerRunId === run.id ? `this run (#${run.seq})` : ownerSeq !== undefined ? `run #${ownerSeq}` : 'an earlier run no longer kept (retention)';
      show('deduplicate', `Duplicate stopped: key ${ref.key} was already done by ${by}; its result is reused and nothing is sent again.`);
    } else if (claim?.status === 'uncertain') {
      const skipped = skipRecordOf(claim.output);
      show('review', `Waits for a decision: ${skipped ? describeSkip(skipped, now) : `it is not known whether key ${ref.key} was done.`}`, skipShown(skipped));
    } else if (childId !== undefined) {
      // The key started a child run: a rerun follows that run, never starts another.
      const child = lookup.run(childId);
      const named = child ? `child run #${child.seq}` : 'the child run its key started';
      if (child?.status === 'failed') show('act', `Reruns ${named} from its checkpoints: its key started that run, so no second child is started.`);
      else show('deduplicate', `Waits for ${named}: its key started that run, so no second child is started.`);
    } else if (!claim && recordedDone.has(refText(ref.scope, ref.key))) {
      show('act', `Acts again: key ${ref.key} was done before, but its record expired, so nothing stops it now.`, { expiredKey: ref.key });
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
  return { steps, counts, removed, warnings: steps.filter((step) => step.keyChange).length, expired: steps.filter((step) => step.expiredKey).length };
}

/** A Skip's moment beside the reason's words, for a page to word in its reader's zone. */
const skipShown = (skipped: SkipRecord | undefined): Partial<PreviewStep> => (skipped ? { skipped: { runSeq: skipped.runSeq, at: Date.parse(skipped.at) } } : {});

/** Why a checkpointed step is skipped: it finished, a person recorded it as done, or it was skipped. */
function checkpointWords(checkpoint: CheckpointRow): string {
  const output = (checkpoint.output ?? {}) as { resolved?: unknown; reason?: unknown };
  if (checkpoint.status === 'skipped') {
    return output.reason === 'review' ? 'your decision skipped it, so it stays skipped' : 'it was skipped before and stays skipped';
  }
  if (output.resolved === 'happened') return `recorded as done by your decision (attempt ${checkpoint.attempt}) that it happened`;
  return `it already finished in attempt ${checkpoint.attempt}`;
}
