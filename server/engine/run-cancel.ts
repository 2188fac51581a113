/**
 * Cancelling a run, and what a worker does when the run it holds is cancelled.
 *
 * - queued / waiting / needs review: the run becomes `cancelled` at once; no lease
 *   statement picks a cancelled run, so a queued run is never leased and a delay never wakes.
 * - running: the same statement bumps the run's lease fence, so the worker can write
 *   nothing more for the run (its next journal flush refuses) and no new step starts.
 *   A side-effect step whose claim is already won is the exception: it finishes, and its
 *   outcome is recorded under the claim's own fence (`recordAfterCancel`), so the claim
 *   is settled, never left in progress. A won claim whose step had not yet acted when the
 *   cancel landed is released (`failed`: nothing was sent) instead (`stopIfCancelled`).
 * - a cancel racing the run's own end: both are one fenced statement on the run row; the
 *   first to commit wins and the other changes nothing.
 *
 * The timeline's `run.cancelled` says who and what had already happened: the steps that
 * were acting and how many did not run. When an acting step is recorded later, a second
 * `run.cancelled` (with `finished`) says how it ended and counts again.
 *
 * Children: once the run's cancel is written, every run its Run flow steps started that has
 * not ended is cancelled the same way, then theirs (`cancelChildren`), each in a transaction
 * of its own that takes the child's row before its parent's, as a child's own end does. Read
 * after the parent's fence moved, so no child it starts can be missed: starting one proves
 * the parent's lease in the same transaction. A child's `run.cancelled` names the run that
 * started it (`parentRunId`, `parentSeq`), and the claim that held it is released.
 */
import type { Db, Sql } from '../store/db.ts';
import { openChildrenOf, openChildStatus, releaseCancelledChild, wakeWaiters } from '../store/child-runs.ts';
import { settleClaim } from '../store/claims.ts';
import { actingSteps, cancelReason, leaseState, type CancelReason } from '../store/run-cancel.ts';
import { transitionRun } from '../store/runs.ts';
import { insertEvents, loadCheckpoints, writeCheckpointsAndEvents } from '../store/timeline.ts';
import type { FlowPlan, PlanCache } from './flow-plan.ts';
import { RunCancelledError, type ClaimOutcome, type StepJournal } from './run-journal.ts';
import type { CheckpointRow, Clock, RunRow, RunStatus, TimelineEvent } from './types.ts';

/** Statuses a run can be cancelled from (the Cancel button shows on all but `failed`). */
export const CANCELLABLE: readonly RunStatus[] = ['queued', 'held', 'running', 'waiting', 'needs_review', 'failed'];

/** Run endings a worker may have buffered; a cancelled run keeps its own ending. */
const RUN_ENDINGS = new Set(['run.succeeded', 'run.failed', 'run.needs_review']);

/** Steps of the plan (the trigger aside) with no checkpoint and not acting: they did not run. */
function stepsNotRun(plan: FlowPlan | null | undefined, checkpoints: readonly CheckpointRow[], acting: readonly string[]): number {
  if (!plan) return 0;
  const done = new Set([...checkpoints.map((row) => row.nodeId), ...acting]);
  return plan.order.filter((step) => step.id !== plan.trigger?.id && !done.has(step.id)).length;
}

/** What a cancel found: the steps that were acting (they finish and are recorded) and how many will not run. */
export interface Cancellation {
  runId: string;
  seq: number;
  acting: { nodeId: string; label: string }[];
  notRun: number;
}

/** The run that started a child cancelled with it. */
interface StartedBy {
  runId: string;
  seq: number;
}

/**
 * Cancels the run when it is in a cancellable status, then the children it started that have
 * not ended (with their count); undefined when the run is not cancellable (it ended, or was
 * cancelled, first), and then no child is touched.
 */
export async function cancelRun(db: Db, plans: PlanCache, run: RunRow, by: string, clock: Clock): Promise<(Cancellation & { children: number }) | undefined> {
  const cancelled = await cancelOne(db, run, await plans.get(run.versionId), by, clock);
  if (!cancelled) return undefined;
  return { ...cancelled, children: await cancelChildren(db, plans, run, by, clock) };
}

/**
 * Cancels, breadth first, the runs `root` started that have not ended, and theirs; returns
 * how many. A child another waiting run also follows is left going, with its own children.
 * Each run is visited once, so a loop of parents in bad data ends.
 */
async function cancelChildren(db: Db, plans: PlanCache, root: RunRow, by: string, clock: Clock): Promise<number> {
  const seen = new Set([root.id]);
  const parents: RunRow[] = [root];
  let count = 0;
  for (let parent = parents.shift(); parent !== undefined; parent = parents.shift()) {
    for (const child of await openChildrenOf(db, parent.id)) {
      if (seen.has(child.id)) continue;
      seen.add(child.id);
      const startedBy = { runId: parent.id, seq: parent.seq };
      if (!(await cancelOne(db, child, await plans.get(child.versionId), by, clock, startedBy))) continue;
      count++;
      parents.push(child);
    }
  }
  return count;
}

/** One run's cancel: the status, the fence and the timeline event, in one transaction. */
async function cancelOne(db: Db, run: RunRow, plan: FlowPlan | null | undefined, by: string, clock: Clock, startedBy?: StartedBy): Promise<Cancellation | undefined> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    // A child is cancelled only from a status it has not ended in, read under its row's lock.
    const childStatus = startedBy ? await openChildStatus(tx, run.id) : undefined;
    if (startedBy && childStatus === undefined) return undefined;
    const previousStatus = childStatus ?? run.status;
    if (!(await transitionRun(tx, run.id, childStatus ? [childStatus] : CANCELLABLE, 'cancelled', { now }))) return undefined;
    // A cancelled child wakes the runs waiting for it, which then fail their step.
    if (run.parentRunId !== null) await wakeWaiters(tx, run.parentRunId, run.id, now);
    if (startedBy) await releaseCancelledChild(tx, startedBy.runId, run.id, now);
    // Read after the transition: a claim won before it is acting, and none can be won after.
    // A step parked on its claim (a Run flow step waiting for its child) is not acting.
    const checkpoints = await loadCheckpoints(tx, run.id);
    const parked = new Set(checkpoints.filter((row) => row.status === 'waiting').map((row) => row.nodeId));
    const acting = (await actingSteps(tx, run.id)).filter((nodeId) => !parked.has(nodeId));
    const notRun = stepsNotRun(plan, checkpoints, acting);
    const reason: CancelReason = { by, ...(startedBy ? { parentRunId: startedBy.runId, parentSeq: startedBy.seq } : {}) };
    await insertEvents(tx, [{ runId: run.id, type: 'run.cancelled', nodeId: null, attempt: run.attempt, data: { ...reason, previousStatus, acting, notRun }, createdAt: now }]);
    const label = (nodeId: string) => plan?.order.find((step) => step.id === nodeId)?.label ?? nodeId;
    return { runId: run.id, seq: run.seq, acting: acting.map((nodeId) => ({ nodeId, label: label(nodeId) })), notRun };
  });
}

/**
 * Records the outcome of a step that was acting when its run was cancelled: the claim is
 * settled under its own fence, the step's checkpoint and events are written, and a
 * `run.cancelled` event says how it ended. False (nothing written) when the run was not
 * cancelled or a newer holder owns the claim.
 */
export async function recordAfterCancel(
  db: Db,
  journal: { run: RunRow; planSteps: readonly string[] },
  claim: ClaimOutcome,
  checkpoints: readonly CheckpointRow[],
  events: readonly TimelineEvent[],
  now: number,
  finished: string = claim.status,
): Promise<boolean> {
  const { run } = journal;
  return db.transaction(async (tx) => {
    const reason = await cancelReason(tx, run.id);
    if (reason === undefined) return false;
    if (!(await settleClaim(tx, claim, { ...claim, now }))) return false;
    const nodeId = claimNode(checkpoints, events, claim);
    await writeCheckpointsAndEvents(tx, checkpoints, events.filter((event) => !RUN_ENDINGS.has(event.type)));
    await insertEvents(tx, [summary(run, reason, nodeId, finished, await notRunNow(tx, run.id, journal.planSteps), now)]);
    return true;
  });
}

function summary(run: RunRow, reason: CancelReason, nodeId: string | null, finished: string, notRun: number, now: number): TimelineEvent {
  return { runId: run.id, type: 'run.cancelled', nodeId: null, attempt: run.attempt, data: { ...reason, acting: nodeId ? [nodeId] : [], finished, notRun }, createdAt: now };
}

async function notRunNow(sql: Sql, runId: string, planSteps: readonly string[]): Promise<number> {
  const recorded = new Set((await loadCheckpoints(sql, runId)).map((row) => row.nodeId));
  return planSteps.filter((id) => !recorded.has(id)).length;
}

/** The step a claim outcome belongs to: the checkpoint or event that names its key. */
function claimNode(checkpoints: readonly CheckpointRow[], events: readonly TimelineEvent[], claim: ClaimOutcome): string | null {
  const checkpoint = checkpoints.find((row) => row.key === claim.key && row.keyScope === claim.scope);
  if (checkpoint) return checkpoint.nodeId;
  return [...events].reverse().find((event) => event.nodeId !== null && event.type.startsWith('step.'))?.nodeId ?? null;
}

/**
 * Checked just before a side-effect step acts (each try): when its run was cancelled
 * since, the claim this worker won is released (`failed`: nothing was sent, so a later
 * run may act on the key) and the step is recorded as not run; the worker stops.
 * One read per try, so "nothing new starts after the cancel" holds exactly: a cancel that
 * lands after this read finds the step acting, and it finishes.
 */
export async function stopIfCancelled(db: Db, journal: StepJournal, nodeId: string, claim: { scope: string; key: string; fence: number }, clock: Clock): Promise<void> {
  const state = await leaseState(db, journal.run);
  if (state?.status !== 'cancelled') return;
  const now = clock.now();
  const event: TimelineEvent = { runId: journal.run.id, type: 'step.skipped', nodeId, attempt: journal.run.attempt, data: { reason: 'cancelled', key: claim.key, scope: claim.scope }, createdAt: now };
  await recordAfterCancel(db, journal, { ...claim, status: 'failed', error: 'Not sent: the run was cancelled before this step acted.' }, [], [event], now, 'not_sent');
  throw new RunCancelledError(`Run ${journal.run.id} was cancelled before step ${nodeId} acted.`);
}
