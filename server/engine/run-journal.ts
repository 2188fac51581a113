/**
 * Everything a run writes goes through its journal: events and checkpoints are buffered
 * and written in ONE transaction together with the claim's outcome and the run's own row.
 * The transaction first proves the worker still holds the run (its lease fence) and, for
 * a side effect, the claim (its fence); otherwise it writes nothing and throws.
 *
 * Steps without side effects are only buffered: if the process dies before the next
 * flush they simply run again, which is harmless by definition.
 */
import type { Db } from '../store/db.ts';
import { holdChildren, wakeWaiters, type ChildWait } from '../store/child-runs.ts';
import { settleClaim } from '../store/claims.ts';
import { recordAfterCancel } from './run-cancel.ts';
import { endLeasedRun, renewRunLease, type LeasedRunEnding } from '../store/runs.ts';
import { writeFencedRunChange } from '../store/fenced-run-write.ts';
import { writeCheckpointsAndEvents } from '../store/timeline.ts';
import { scheduleAutoRerun } from '../store/auto-reruns.ts';
import { queueRunAlert } from './alerts/outbox.ts';
import { countStepOutcomes, NO_ENGINE_METRICS, type EngineMetrics } from './engine-metrics.ts';
import type { CheckpointRow, ClaimStatus, Clock, RunRow, RunStatus, TimelineEvent, TimelineEventType } from './types.ts';

/** The worker no longer holds the run: another worker took it over, or it was cancelled. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

/** The run was cancelled while this worker held it; what had to be recorded was (run-cancel.ts). */
export class RunCancelledError extends LeaseLostError {
  override name = 'RunCancelledError';
}

/** A newer holder owns the claim; this worker's outcome must not be recorded. */
export class ClaimFencedError extends Error {
  override name = 'ClaimFencedError';
}

export interface ClaimOutcome {
  scope: string;
  key: string;
  fence: number;
  status: ClaimStatus;
  output?: unknown;
  error?: string | null;
}

export interface RunEnding {
  status: Extract<RunStatus, 'succeeded' | 'failed' | 'needs_review' | 'waiting' | 'held'>;
  error?: string | null;
  wakeAt?: number | null;
  /** The step a failed run failed at, kept on the run so runs can be found by it. */
  failedNode?: string | null;
}

export interface FlushOptions {
  claim?: ClaimOutcome;
  ending?: RunEnding;
  /**
   * The child runs a parking run waits for (Run flow steps): their rows are taken first in
   * the transaction, before the run's own, and a child that ended since the run looked at
   * it wakes the run at once instead of at its wake-up time (store/child-runs.ts).
   */
  waitsFor?: readonly ChildWait[];
}

/**
 * What a step writes through: the run's journal, or one item's view of it inside a For
 * each step (item-journal.ts), which turns the run endings a step asks for into the
 * item's outcome.
 */
export type StepJournal = Pick<RunJournal, 'run' | 'event' | 'checkpoint' | 'flush' | 'planSteps'>;

export class RunJournal {
  private events: TimelineEvent[] = [];
  private checkpoints: CheckpointRow[] = [];

  constructor(
    private readonly db: Db,
    readonly run: RunRow,
    private readonly clock: Clock,
    private readonly leaseMs: number,
    private readonly metrics: EngineMetrics = NO_ENGINE_METRICS,
  ) {}

  event(type: TimelineEventType, nodeId: string | null, data: Record<string, unknown> | null = null): void {
    this.events.push({ runId: this.run.id, type, nodeId, attempt: this.run.attempt, data, createdAt: this.clock.now() });
  }

  checkpoint(nodeId: string, status: CheckpointRow['status'], output: unknown, key?: { scope: string; key: string }): void {
    this.checkpoints.push({
      runId: this.run.id, nodeId, status, output: output ?? null,
      keyScope: key?.scope ?? null, key: key?.key ?? null, attempt: this.run.attempt, createdAt: this.clock.now(),
    });
  }

  /** The run's steps (the trigger aside), to count what did not run when it is cancelled. */
  planSteps: readonly string[] = [];

  /** Nodes whose checkpoints the last flush wrote (for crash points). */
  lastFlushed: string[] = [];

  /**
   * The flow's delays before automatic reruns of a failed run (settings.retryFailedRuns),
   * in milliseconds. A failure schedules the next one in its own transaction.
   */
  retryLaterMs: readonly number[] = [];

  /** Told when a flush that ends the run begins: the run has nothing left to execute (worker.ts). */
  onEnding?: () => void;

  async flush(options: FlushOptions = {}): Promise<void> {
    if (options.ending) this.onEnding?.();
    const now = this.clock.now();
    // Taken before the write: items of a For each step run at once and keep buffering
    // while this transaction is written; theirs go with the next flush.
    const events = this.events;
    const checkpoints = this.checkpoints;
    this.events = [];
    this.checkpoints = [];
    try {
      await this.write(options, now, checkpoints, events);
    } catch (error) {
      // Cancelled while a step held its claim: the step's outcome is still recorded, under
      // the claim's own fence, so the claim is settled; then the worker stops.
      const refused = error instanceof LeaseLostError || error instanceof ClaimFencedError;
      if (!refused || !options.claim || !(await recordAfterCancel(this.db, this, options.claim, checkpoints, events, now))) {
        this.events = [...events, ...this.events];
        this.checkpoints = [...checkpoints, ...this.checkpoints];
        throw error;
      }
      this.countCommitted(events);
      throw new RunCancelledError(`Run ${this.run.id} was cancelled; the step that was acting is recorded.`);
    }
    this.countCommitted(events);
    this.lastFlushed = checkpoints.map((checkpoint) => checkpoint.nodeId);
  }

  /** Counted only once written: a refused write is retried or belongs to someone else. Test runs are left out. */
  private countCommitted(events: readonly TimelineEvent[]): void {
    if (this.run.testScope === null) countStepOutcomes(this.metrics, events);
  }

  /**
   * On PostgreSQL a flush that writes only the run's own row, checkpoints and events — no
   * claim, no child to hold or wake, no failure with its rerun and alert — is one
   * statement instead of a transaction's five round trips: most steps' and runs' ends.
   */
  private fitsOneStatement(options: FlushOptions): boolean {
    if (this.db.dialect !== 'postgresql' || options.claim || options.waitsFor?.length) return false;
    const ending = options.ending;
    if (!ending) return true;
    if (ending.status === 'failed' || ending.status === 'needs_review') return false;
    return this.run.parentRunId === null || ending.status === 'waiting' || ending.status === 'held';
  }

  private async write(options: FlushOptions, now: number, checkpoints: CheckpointRow[], events: TimelineEvent[]): Promise<void> {
    const { run } = this;
    const ended = (ending: RunEnding, wakeNow: boolean): LeasedRunEnding => ({
      status: ending.status, error: ending.error ?? null, wakeAt: wakeNow && ending.status === 'waiting' ? now : ending.wakeAt ?? null,
      finishedAt: ending.status === 'waiting' || ending.status === 'held' ? null : now,
      failedNode: ending.failedNode ?? null,
    });
    if (this.fitsOneStatement(options)) {
      const change = options.ending ? { ending: ended(options.ending, false) } : { leaseUntil: now + this.leaseMs };
      if (!(await writeFencedRunChange(this.db, run, change, checkpoints, events))) throw new LeaseLostError(`Run ${run.id} is no longer held by this worker.`);
      return;
    }
    await this.db.transaction(async (tx) => {
      const ending = options.ending;
      const wakeNow = options.waitsFor?.length ? await holdChildren(tx, run.id, options.waitsFor) : false;
      if (ending) {
        const held = await endLeasedRun(tx, run, ended(ending, wakeNow));
        if (!held) throw new LeaseLostError(`Run ${run.id} is no longer held by this worker.`);
        // A child run's end wakes the runs waiting for it (steps/child-run.ts).
        if (run.parentRunId !== null && ending.status !== 'waiting' && ending.status !== 'held') await wakeWaiters(tx, run.parentRunId, run.id, now);
      }
      if (options.claim) {
        // Without an ending, the claim's update also checks the run's fence (one statement).
        const settled = await settleClaim(tx, options.claim, { ...options.claim, now }, ending ? undefined : run);
        if (!settled) {
          const reason = ending ? 'a newer holder owns the claim' : 'a newer holder owns the claim or the run';
          throw new ClaimFencedError(`Refused to record ${options.claim.scope} / ${options.claim.key}: ${reason}.`);
        }
      } else if (!ending) {
        if (!(await renewRunLease(tx, run, now + this.leaseMs))) throw new LeaseLostError(`Run ${run.id} is no longer held by this worker.`);
      }
      let written = events;
      let rerunScheduled = false;
      // A live run's failure: its next automatic rerun (or none left) is written with it.
      if (ending?.status === 'failed' && run.testScope === null) {
        const next = await scheduleAutoRerun(tx, run.id, this.retryLaterMs, now);
        rerunScheduled = next !== null;
        if (next) written = [...events, { runId: run.id, type: 'run.rerun_scheduled', nodeId: null, attempt: run.attempt, data: { ...next }, createdAt: now }];
      }
      // The alert is recorded with the ending itself (alerts/outbox.ts), never apart from it;
      // a failure that an automatic rerun will try again alerts nobody yet.
      if (ending && (ending.status === 'failed' || ending.status === 'needs_review')) {
        await queueRunAlert(tx, run, { state: ending.status, message: ending.error ?? null, now, rerunScheduled });
      }
      await writeCheckpointsAndEvents(tx, checkpoints, written);
    });
  }
}
