/**
 * A Run flow step in a run (DESIGN.md §3): its key claims the child run.
 *
 * - No claim yet: ONE transaction wins the claim, records the child's id on it and inserts
 *   the child run (queued). Starting a run is a write to our own database, so there is no
 *   uncertain window as with an outside call: a crash leaves either nothing or a claim
 *   that names its child.
 * - The claim names a child: this run follows that child instead of starting another, so
 *   a rerun, a replay, a restart or a crash-retry of the parent never starts a second one.
 * - While the child runs, the parent parks (`waiting`, checkpoint naming the child); the
 *   child's end wakes it and any other run waiting for it (run-journal.ts, `wakeWaiters`),
 *   with a slow wake-up as a backstop.
 * - The child succeeded: the claim and the step record the child's result. It failed: the
 *   step fails with the child's reason; a later attempt of the parent (a rerun) or another
 *   parent run (a replay) reruns the child from its checkpoints. It needs review: the
 *   parent waits for that decision. It was cancelled: the step fails.
 */
import { newId } from '../../ids.ts';
import { readClaim, takeOverClaim, tryClaim } from '../../store/claims.ts';
import { cancelAutoRerun, pendingAutoRerun } from '../../store/auto-reruns.ts';
import { recordClaimChild } from '../../store/child-runs.ts';
import type { Db } from '../../store/db.ts';
import { flowStore } from '../../store/flows.ts';
import { getRun, insertRun, renewRunLease, transitionRun } from '../../store/runs.ts';
import { insertEvents, loadCheckpoints } from '../../store/timeline.ts';
import { MissingPathError } from '../../../core/templates/render.ts';
import { claimReference, type ClaimReference } from '../claim-reference.ts';
import { NonRetriableError, UserError } from '../errors.ts';
import type { FlowDocument } from '../flow/document.ts';
import type { TypedStep } from '../flow/planned-step.ts';
import { PlanCache, planFlow, type FlowPlan } from '../flow-plan.ts';
import { answerFromRecord } from '../protocol.ts';
import { skipRecordOf, uncertainClaimMessage } from '../review-decisions.ts';
import { failRun, stopForReview } from '../run-endings.ts';
import { LeaseLostError } from '../run-journal.ts';
import { fingerprint, masked, type StepExecution, type StepResult } from '../step-runtime.ts';
import { checkRenderedKey } from '../templates/lint-key.ts';
import type { CheckpointRow, ClaimRow, RunRow } from '../types.ts';
import { pickVersion } from '../version-choice.ts';
import { moveForRerun, versionEventData } from '../version-rerun.ts';
import { flowRunStep, type FlowRunPlan } from './flow-run.ts';

/** A parked parent looks at its child again after this long even if no end woke it. */
export const CHILD_WAIT_BACKSTOP_MS = 5 * 60_000;

/** What the parent's waiting checkpoint (and the claim, while the child runs) records. */
export interface ChildMark {
  childRunId: string;
  /** The parent attempt that last started or reran the child, or waited for it. */
  parentAttempt: number;
  /** What the parent last said about the child, so a wake-up repeats nothing. */
  phase?: 'running' | 'needs_review' | 'retrying';
}

export function childMark(value: unknown): ChildMark | undefined {
  const mark = value as Partial<ChildMark> | null | undefined;
  return typeof mark?.childRunId === 'string' && typeof mark.parentAttempt === 'number' ? (mark as ChildMark) : undefined;
}

export async function runFlowStep(step: StepExecution, previous: CheckpointRow | undefined): Promise<StepResult> {
  const { deps, journal, render } = step;
  const node = step.node as TypedStep<'flow.run'>;
  const run = journal.run;
  const waited = previous?.status === 'waiting' ? childMark(previous.output) : undefined;
  // A parent woken to look at its child again is the same try of the step, not a new one.
  if (waited?.parentAttempt !== run.attempt) journal.event('step.started', node.id, null);
  let plan: FlowRunPlan;
  let ref: ClaimReference;
  try {
    plan = flowRunStep.prepare(node, render);
    ref = claimReference(node, run, (template) => render.text(template));
    checkRenderedKey(ref.key);
  } catch (error) {
    if (error instanceof MissingPathError || error instanceof UserError || error instanceof NonRetriableError) {
      return failRun(journal, node.id, error.message, { details: error instanceof MissingPathError ? { path: error.path } : {} });
    }
    throw error;
  }
  const request = masked(flowRunStep.describe(plan), step.secretValues);
  const hash = fingerprint(request);

  for (;;) {
    const claim = await readClaim(deps.db, ref.scope, ref.key);
    // A known outcome past its time to live starts afresh; a child still going, or an uncertain start, never ages out.
    if (!claim || claim.status === 'failed' || (claim.status === 'succeeded' && claim.expiresAt < deps.clock.now())) {
      const started = await startChild(step, plan, ref, claim, hash, request);
      if (typeof started === 'string') return failRun(journal, node.id, started);
      if (started === undefined) continue; // another run claimed the key first: follow its child
      return parkOn(step, ref, started, waited, await planOf(deps.db, started.versionId));
    }
    if (claim.status === 'succeeded') return answerFromRecord(step, claim, hash, request);
    if (claim.status === 'uncertain') {
      const skipped = skipRecordOf(claim.output);
      return stopForReview(journal, node.id, uncertainClaimMessage(claim, run.id, deps.clock.now()), ref, { runId: claim.ownerRunId, ...(skipped ? { skippedBy: skipped } : {}) });
    }
    const own = claim.ownerRunId === run.id && claim.ownerNodeId === node.id;
    const childRunId = childMark(claim.output)?.childRunId;
    if (childRunId === undefined || (!own && claim.fingerprint !== hash)) {
      // Not a child run's claim, or a child started with another input: answered as any key conflict.
      return answerFromRecord(step, claim, hash, request);
    }
    const child = await getRun(deps.db, childRunId);
    if (!child) return failRun(journal, node.id, `The child run this step started (${childRunId}) no longer exists, so its result cannot be known.`);
    // The mark of this attempt: its waiting checkpoint, or (after a crash before it) the claim it won.
    const mark = waited ?? (own ? childMark(claim.output) : undefined);
    return follow(step, ref, claim, child, mark);
  }
}

/** Acts on what the child's status says: record its result, fail, rerun it, or wait. */
async function follow(step: StepExecution, ref: ClaimReference, claim: ClaimRow, child: RunRow, mark: ChildMark | undefined): Promise<StepResult> {
  const { deps, journal, node } = step;
  const run = journal.run;
  const childPlan = await planOf(deps.db, child.versionId);
  const name = childPlan?.document.name ?? child.flowId;
  switch (child.status) {
    case 'succeeded': {
      const output = { childRunId: child.id, result: await childResult(deps.db, child, childPlan) };
      const mine = claim.ownerRunId === run.id && claim.ownerNodeId === node.id;
      journal.checkpoint(node.id, 'succeeded', output, ref);
      journal.event(mine ? 'step.succeeded' : 'step.duplicate', node.id, mine
        ? { key: ref.key, scope: ref.scope, output, childRunId: child.id }
        : { key: ref.key, scope: ref.scope, runId: claim.ownerRunId, nodeId: claim.ownerNodeId, doneAt: child.finishedAt, output, childRunId: child.id });
      // Whoever sees the child's success first settles the key (the same output each time).
      await journal.flush({ claim: { scope: ref.scope, key: ref.key, fence: claim.fence, status: 'succeeded', output } });
      deps.crash.check('after-checkpoint', node.id);
      return { kind: 'done', output };
    }
    case 'cancelled':
      return failWith(step, ref, child, `Child run #${child.seq} of ${name} was cancelled, so this step has no result.`);
    case 'failed': {
      const seen = mark?.childRunId === child.id && mark.parentAttempt === run.attempt;
      // The child's flow tries failed runs again later (settings.retryFailedRuns): wait for that.
      const retry = seen ? await pendingAutoRerun(deps.db, child.id) : null;
      if (retry) return parkOn(step, ref, child, mark, childPlan, undefined, retry.at);
      if (seen) return failWith(step, ref, child, `Child run of ${name} failed: ${child.error ?? 'no reason was recorded.'}`);
      // A new attempt of this parent, or another parent run with the key: the child is
      // rerun from its checkpoints (its finished steps skipped, its keys deduplicated).
      const rerun = await rerunChild(deps.db, deps.clock.now(), child, run, node.label);
      return parkOn(step, ref, rerun ?? child, mark, childPlan, rerun ? `Child run #${child.seq} of ${name} failed earlier; it is run again from its checkpoints.` : undefined);
    }
    default:
      return parkOn(step, ref, child, mark, childPlan);
  }
}

/** Fails the step; its checkpoint keeps naming the child, so the run page links it and a rerun finds it. */
function failWith(step: StepExecution, ref: ClaimReference, child: RunRow, message: string): Promise<StepResult> {
  const { journal, node } = step;
  const mark: ChildMark = { childRunId: child.id, parentAttempt: journal.run.attempt };
  journal.checkpoint(node.id, 'failed', mark, ref);
  return failRun(journal, node.id, message, { details: { childRunId: child.id } });
}

/** Parks the parent until its child ends; says so on the timeline once per change. */
async function parkOn(step: StepExecution, ref: ClaimReference, child: RunRow, before: ChildMark | undefined, childPlan: FlowPlan | null, note?: string, retryAt?: number): Promise<StepResult> {
  const { deps, journal, node } = step;
  const run = journal.run;
  const name = childPlan?.document.name ?? child.flowId;
  const phase = retryAt !== undefined ? 'retrying' : child.status === 'needs_review' ? 'needs_review' : 'running';
  const mark: ChildMark = { childRunId: child.id, parentAttempt: run.attempt, phase };
  journal.checkpoint(node.id, 'waiting', mark, ref);
  const changed = note !== undefined || before?.childRunId !== child.id || before.parentAttempt !== run.attempt || before.phase !== phase;
  if (changed) {
    const message = note ?? (phase === 'needs_review'
      ? `Child run #${child.seq} of ${name} needs review${child.error ? `: ${child.error}` : ''}. This step waits until it is decided there.`
      : phase === 'retrying'
      ? `Child run #${child.seq} of ${name} failed${child.error ? `: ${child.error}` : ''}. Its flow tries it again at ${new Date(retryAt!).toISOString()}, and this step waits for it.`
      : `Waiting for child run #${child.seq} of ${name}.`);
    journal.event('step.waiting', node.id, { message, childRunId: child.id, key: ref.key, scope: ref.scope });
  }
  await journal.flush({
    ending: { status: 'waiting', wakeAt: deps.clock.now() + CHILD_WAIT_BACKSTOP_MS },
    // The child's row is taken first: a child that ended meanwhile wakes this run at once,
    // and one that ends later finds this run parked and waiting for it.
    waitsFor: [{ runId: child.id, seenStatus: child.status }],
  });
  return { kind: 'ended' };
}

/**
 * Wins the key and starts the child in one transaction; undefined when another run won
 * the key first, or a sentence when the flow to run cannot be run.
 */
async function startChild(step: StepExecution, plan: FlowRunPlan, ref: ClaimReference, existing: ClaimRow | undefined, hash: string, request: unknown): Promise<RunRow | string | undefined> {
  const { deps, journal, node } = step;
  const run = journal.run;
  const flows = flowStore(deps.db);
  const version = await flows.latestVersion(plan.flowId);
  if (!version) {
    const flow = await flows.get(plan.flowId);
    return flow
      ? `The flow "${flow.name}" has no published version, so it cannot be run. Publish it, then rerun this run.`
      : `The flow this step runs (${plan.flowId}) does not exist on this server. Choose another flow in step "${node.label}".`;
  }
  const document = JSON.parse(version.document) as FlowDocument;
  const childId = newId('run');
  const now = deps.clock.now();
  const won = await deps.db.transaction(async (tx) => {
    // Only the worker that holds the parent may start its child (a cancel bumps the fence).
    if (!(await renewRunLease(tx, run, now + deps.config.leaseMs))) throw new LeaseLostError(`Run ${run.id} is no longer held by this worker.`);
    const until = now + ref.ttlMs;
    const owner = { runId: run.id, nodeId: node.id, fingerprint: hash, request, leaseUntil: until, now };
    // The claim is held by the child, not by a worker's heartbeat: its lease lasts as the key does.
    const fence = existing && existing.status === 'failed' && existing.expiresAt >= now
      ? await takeOverClaim(tx, existing, owner)
      : await tryClaim(tx, { scope: ref.scope, key: ref.key, fingerprint: hash, request, runId: run.id, nodeId: node.id, leaseUntil: until, expiresAt: until, now });
    if (fence === undefined) return false;
    await recordClaimChild(tx, { scope: ref.scope, key: ref.key, fence }, { childRunId: childId, parentAttempt: run.attempt });
    await insertRun(tx, {
      id: childId, flowId: plan.flowId, versionId: version.id, input: plan.input, triggerKind: 'flow',
      triggerNode: planOfDocument(version.id, document).trigger?.id ?? null, eventId: null, replayOf: null, createdAt: now,
      createdBy: `run #${run.seq}`, parent: { runId: run.id, nodeId: node.id },
      // A test run's child is a test run too, in the same test: its keys and effects stay the test's.
      ...(run.testScope !== null ? { test: { scope: run.testScope, targets: run.testTargets ?? 'stand-ins' } } : {}),
    });
    return true;
  });
  if (!won) return undefined;
  // Winning the key and starting the child are one write: both crash windows are here.
  deps.crash.check('after-claim', node.id);
  deps.crash.check('after-act', node.id);
  return (await getRun(deps.db, childId))!;
}

/** Reruns a failed child as the run service does (latest version, unless a test); undefined when it moved meanwhile. */
async function rerunChild(db: Db, now: number, child: RunRow, parent: RunRow, stepLabel: string): Promise<RunRow | undefined> {
  const target = await pickVersion(flowStore(db), child);
  // Read before the transaction, which may run statements on its own connection only.
  const targetPlan = await planOf(db, target.versionId);
  const plans = new PlanCache(async (versionId) => (versionId === target.versionId ? targetPlan?.document ?? null : null));
  const moved = await db.transaction(async (tx) => {
    if (!(await transitionRun(tx, child.id, ['failed'], 'queued', { attemptIncrement: true, now }))) return false;
    // As a person's rerun does: the automatic one it replaces is not scheduled any more.
    await cancelAutoRerun(tx, child.id);
    await moveForRerun(tx, { plans }, child, target);
    await insertEvents(tx, [{
      runId: child.id, type: 'run.rerun', nodeId: null, attempt: child.attempt + 1, createdAt: now,
      data: { by: `run #${parent.seq} (step ${stepLabel})`, previousStatus: child.status, parentRunId: parent.id, ...versionEventData(target) },
    }]);
    return true;
  });
  return moved ? getRun(db, child.id) : undefined;
}

/** The child's result: the output of its last step, in flow order, that finished. */
async function childResult(db: Db, child: RunRow, plan: FlowPlan | null): Promise<unknown> {
  if (!plan) return null;
  const done = new Map((await loadCheckpoints(db, child.id)).filter((row) => row.status === 'succeeded').map((row) => [row.nodeId, row.output]));
  const last = [...plan.order].reverse().find((planned) => planned.id !== plan.trigger?.id && done.has(planned.id));
  return last ? done.get(last.id) : null;
}

// Versions never change, so their plans are kept (a few hundred at most).
const plans = new Map<string, FlowPlan>();

function planOfDocument(versionId: string, document: FlowDocument): FlowPlan {
  let plan = plans.get(versionId);
  if (!plan) {
    if (plans.size >= 200) plans.delete(plans.keys().next().value!);
    plan = planFlow(document);
    plans.set(versionId, plan);
  }
  return plan;
}

async function planOf(db: Db, versionId: string): Promise<FlowPlan | null> {
  const cached = plans.get(versionId);
  if (cached) return cached;
  const version = await flowStore(db).version(versionId);
  return version ? planOfDocument(versionId, JSON.parse(version.document) as FlowDocument) : null;
}
