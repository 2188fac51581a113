/**
 * The worker: leases runs from the database and executes them, up to `concurrency` at a
 * time. Nothing is coordinated in memory: one lease statement decides who runs what, a
 * heartbeat keeps held runs and claims alive, and a run whose lease lapses (its worker
 * died) is leased again by anyone and resumes from its checkpoints.
 *
 * The worker must release or keep heartbeating every lease it holds on every path: a run
 * it forgets stays invisible until its lease lapses. Its modes and what stopping waits
 * for are in worker-lifecycle.ts.
 */
import { hostname } from 'node:os';
import { newId } from '../ids.ts';
import { extendClaimLease } from '../store/claims.ts';
import { heartbeatRuns, leaseRunsNotingTakeOvers, releaseRunLease, type LeasedRun, type LeaseRequest, type RunLeaseTo } from '../store/runs.ts';
import type { FlowPause } from '../store/pause.ts';
import { cancelledAmong } from '../store/run-cancel.ts';
import { announceWorker, retireWorker } from '../store/workers.ts';
import type { PlanCache } from './flow-plan.ts';
import { executeRun } from './run-executor.ts';
import { RunJournal } from './run-journal.ts';
import type { ClaimTracker, EngineDeps } from './step-runtime.ts';
import type { RunRow } from './types.ts';
import { repeatEvery, WorkerLifecycle, type Repeater, type WorkerMode } from './worker-lifecycle.ts';

export type { WorkerMode };

export interface WorkerOptions {
  concurrency: number;
  /** How often an idle worker looks for work without being woken (default: 250 ms). */
  pollMs: number;
  plans: PlanCache;
  loadSecrets(): Promise<Record<string, string>>;
  /** Lets the process wake the worker as soon as a run is queued. */
  onIdle?: () => void;
  /** Which runs it takes (default: any leasable run); a proof's probe takes one held run. */
  lease?: (request: LeaseRequest) => Promise<RunRow[]>;
}

/** The channel on which PostgreSQL wakes idle workers when a run is queued. */
export const RUNS_CHANNEL = 'onceflow_runs';

/** How long runs in hand may take to finish once the worker is asked to stop (default: 10 s). */
export const STOP_GRACE_MS = 10_000;

/**
 * A place in a worker's hands for one run about to be written, so the run is written
 * already leased to it and starts without a lease statement (webhook-intake.ts). Settled
 * exactly once: take the run written leased, or give the place back.
 */
export interface RunPlace {
  readonly leaseTo: RunLeaseTo;
  /** The run was written leased to this worker (status running, fence 1): it starts now. */
  take(run: LeasedRun): void;
  /** It was not (a repeat, a paused flow's held run, a failed write): the place is free again. */
  giveBack(): void;
}

export interface Worker {
  readonly id: string;
  readonly mode: WorkerMode;
  /** Resolves once the worker has entered `mode` or a later one. */
  reached(mode: WorkerMode): Promise<void>;
  /** idle → starting; the worker is running (leasing) once it listens for wake-ups. Only once. */
  start(): void;
  nudge(): void;
  /**
   * A place for a new run, or null when the worker is not running or its places for new
   * runs are taken. One lease's worth of places is always left to the lease loop, so runs
   * already waiting in the queue (or due from a delay, or whose worker died) are still
   * leased while new ones keep arriving.
   */
  startNow(): RunPlace | null;
  /**
   * Stops leasing, lets running runs finish for up to `graceMs`, then aborts and releases
   * the rest; resolves when every heartbeat and poll has finished and the worker has
   * retired. Calling it again returns the same promise.
   */
  stop(graceMs?: number): Promise<void>;
  /** Runs in hand. */
  activeCount(): number;
  /** Background work in flight: a heartbeat, the lease loop, setting up wake-ups. */
  backgroundCount(): number;
}

type ClaimRef = { scope: string; key: string; fence: number };
/** A run in hand; `ending` once it is writing its ending and has no step left to execute. */
type ActiveRun = { run: RunRow; abort: AbortController; done: Promise<void>; ending: boolean };

/** The flow's pause as the run's lease read it; undefined for a run leased some other way (tests), which reads it itself. */
function pauseReadByLease(run: RunRow | LeasedRun): FlowPause | null | undefined {
  if (!('flowPausedAt' in run)) return undefined;
  return run.flowPausedAt === null ? null : { pausedAt: run.flowPausedAt, pausedBy: run.flowPausedBy ?? 'unknown' };
}

export function createWorker(base: Omit<EngineDeps, 'claims'>, options: WorkerOptions): Worker {
  const id = newId(`wrk_${hostname().replace(/[^a-z0-9]/gi, '').slice(0, 12) || 'host'}`);
  const lifecycle = new WorkerLifecycle();
  const active = new Map<string, ActiveRun>();
  const claims = new Set<ClaimRef>();
  const tracker: ClaimTracker = {
    track(claim) {
      const ref = { ...claim };
      claims.add(ref);
      return () => claims.delete(ref);
    },
  };
  const deps: EngineDeps = { ...base, claims: tracker };
  const { db, clock, config, log } = deps;
  const batch = Math.max(1, Math.min(8, Math.floor(options.concurrency / 4)));
  const background = <T>(work: Promise<T>) => lifecycle.background(work);
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  let heartbeats: Repeater | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let stopped: Promise<void> | null = null;
  /** Places given out by startNow and not yet settled; stop() waits for them. */
  let placesOut = 0;
  const placesSettled: (() => void)[] = [];
  /** Places startNow may fill: the rest are the lease loop's, for runs that were already waiting. */
  const placesForNewRuns = options.concurrency - batch;
  /** Runs in hand that are writing their ending. */
  let ending = 0;
  /*
   * The runs that count against `concurrency`: those still executing steps, and the places
   * given out. A run writing its ending holds nothing but memory while it waits for the
   * commit that records it, yet under group commit that wait is a commit cycle or two; counted,
   * such runs filled every place under webhook intake, and every new run then took the
   * queue and a lease instead of starting at intake (ARCHITECTURE.md, "A new run started at
   * intake"). They stay in `active` (heartbeats, stop) and are bounded all the same: no more
   * than `concurrency` of them go uncounted.
   */
  const inHand = () => active.size - Math.min(ending, options.concurrency) + placesOut;

  const nudge = () => wake?.();

  function startRun(leasedRun: RunRow): void {
    const entry: ActiveRun = { run: leasedRun, abort: new AbortController(), done: Promise.resolve(), ending: false };
    active.set(leasedRun.id, entry);
    entry.done = execute(entry);
  }

  function startNow(): RunPlace | null {
    if (lifecycle.mode !== 'running' || options.lease) return null;
    if (inHand() >= placesForNewRuns) return null;
    placesOut += 1;
    let settled = false;
    const settle = () => {
      if (settled) throw new Error('a run place is settled once');
      settled = true;
      placesOut -= 1;
      if (placesOut === 0) for (const resolve of placesSettled.splice(0)) resolve();
    };
    return {
      leaseTo: { workerId: id, leaseUntil: clock.now() + config.leaseMs },
      take(run) {
        settle();
        startRun(run);
      },
      giveBack() {
        settle();
        nudge();
      },
    };
  }

  const allPlacesSettled = () => (placesOut === 0 ? Promise.resolve() : new Promise<void>((resolve) => placesSettled.push(resolve)));

  async function execute(entry: ActiveRun): Promise<void> {
    const { run, abort } = entry;
    const onEnding = () => {
      if (entry.ending) return;
      entry.ending = true;
      ending++;
    };
    try {
      const plan = await options.plans.get(run.versionId);
      if (!plan) {
        await failRun(run, 'The flow version this run belongs to no longer exists.');
        return;
      }
      let secrets: Record<string, string>;
      try {
        secrets = await options.loadSecrets();
      } catch (error) {
        await failRun(run, `The stored secrets cannot be read: ${(error as Error).message}`);
        return;
      }
      // The signal is made when a step first asks for it: on Node 20 an AbortController's
      // signal costs about 4 µs to create, a twentieth of a one-step run's CPU, and most
      // steps (transforms, branches) never look at it. Each object that hands it on reads
      // it through a getter for the same reason (run-executor.ts, protocol.ts).
      await executeRun(deps, { run, plan, secrets, get signal() { return abort.signal; }, pauseAtLease: pauseReadByLease(run), onEnding });
    } catch (error) {
      log.error({ err: error, runId: run.id }, 'worker failed to execute run');
    } finally {
      if (entry.ending) ending--;
      active.delete(run.id);
      nudge();
    }
  }

  /** Ends a run that cannot start at all, with the reason on its timeline. */
  async function failRun(run: RunRow, message: string): Promise<void> {
    const journal = new RunJournal(db, run, clock, config.leaseMs, deps.metrics);
    journal.event('run.failed', null, { message });
    await journal.flush({ ending: { status: 'failed', error: message } }).catch((error) => log.warn({ err: error, runId: run.id }, 'could not fail run'));
  }

  /** One heartbeat: the worker's announcement, then every lease it holds. Never throws. */
  async function beat(): Promise<void> {
    const now = clock.now();
    await announceWorker(db, { id, host: hostname(), pid: process.pid, now }).catch(() => {});
    const held = [...active.values()].map(({ run }) => ({ id: run.id, fence: run.leaseFence }));
    try {
      const lost = await heartbeatRuns(db, held, now + config.leaseMs);
      // A cancelled run is not aborted: a step acting under a won claim finishes and is
      // recorded (run-cancel.ts); its next write stops the run. Other lost runs stop now.
      const cancelled = lost.length > 0 ? await cancelledAmong(db, lost) : new Set<string>();
      for (const runId of lost) if (!cancelled.has(runId)) active.get(runId)?.abort.abort();
      for (const claim of claims) await extendClaimLease(db, claim, now + config.claimLeaseMs);
    } catch (error) {
      log.warn({ err: error }, 'heartbeat failed');
    }
  }

  /** Waits `pollMs`, or less when nudged; the timer goes with the wait. */
  function idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
      const timer = setTimeout(done, options.pollMs);
      timer.unref();
      wake = done;
    });
  }

  async function leaseLoop(): Promise<void> {
    while (lifecycle.mode === 'running') {
      const free = options.concurrency - inHand();
      let leased: RunRow[] = [];
      // When busy, lease in batches: one statement per finished run would cost more than the run.
      if (free > 0 && (free >= batch || active.size === 0)) {
        try {
          const request = { workerId: id, limit: free, leaseMs: config.leaseMs, now: clock.now() };
          if (options.lease) leased = await options.lease(request);
          else {
            const result = await leaseRunsNotingTakeOvers(db, request);
            leased = result.runs;
            if (result.takenOver > 0) deps.metrics?.leaseTakeOver('run', result.takenOver);
          }
        } catch (error) {
          log.warn({ err: error }, 'leasing runs failed; retrying');
        }
        // Runs leased while a stop was asked for are executed too: stop() waits for them.
        for (const leasedRun of leased) startRun(leasedRun);
      }
      if (lifecycle.mode !== 'running') break;
      if (leased.length === 0 || options.concurrency - inHand() < batch) {
        if (active.size === 0) options.onIdle?.();
        await idle();
      }
    }
  }

  async function begin(): Promise<void> {
    // PostgreSQL wakes idle workers as soon as a run is queued anywhere; polling is the fallback.
    try {
      unlisten = await db.listen(RUNS_CHANNEL, nudge);
    } catch (error) {
      log.warn({ err: error }, 'cannot listen for new runs; polling only');
    }
    // Stopped while starting: stop() unlistens once this has settled.
    if (lifecycle.mode !== 'starting') return;
    lifecycle.enter('running');
    loop = background(leaseLoop());
  }

  /** Waits up to `graceMs` for the runs in hand; aborts the rest and makes them leasable at once. */
  async function finishOrRelease(graceMs: number): Promise<void> {
    const finished = Promise.all([...active.values()].map((entry) => entry.done)).then(() => false);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)));
    const timedOut = await Promise.race([finished, graceOver]);
    clearTimeout(timer);
    if (!timedOut) return;
    const abandoned = [...active.values()];
    for (const entry of abandoned) entry.abort.abort();
    // Leasable at once instead of after the lease lapses; whoever leases one next bumps its
    // fence, so the aborted execution can no longer write to it.
    for (const entry of abandoned) {
      await releaseRunLease(db, entry.run).catch((error) => log.warn({ err: error, runId: entry.run.id }, 'could not release run lease'));
    }
  }

  async function shutDown(graceMs: number): Promise<void> {
    if (lifecycle.mode === 'idle') {
      lifecycle.enter('stopped');
      return;
    }
    lifecycle.enter('stopping');
    nudge();
    await loop;
    // A run written leased to this worker while it was asked to stop is executed too.
    await allPlacesSettled();
    await finishOrRelease(graceMs);
    // Heartbeats outlive the runs they keep; one in flight finishes before the worker retires.
    await heartbeats?.stop();
    await lifecycle.settled();
    await unlisten?.();
    await retireWorker(db, id).catch(() => {});
    lifecycle.enter('stopped');
  }

  return {
    id,
    get mode() {
      return lifecycle.mode;
    },
    reached: (mode) => lifecycle.reached(mode),
    start() {
      lifecycle.enter('starting');
      heartbeats = repeatEvery(Math.max(50, Math.floor(config.leaseMs / 3)), beat, { track: background });
      void background(begin());
    },
    nudge,
    startNow,
    activeCount: () => active.size,
    backgroundCount: () => lifecycle.inFlight,
    stop(graceMs = STOP_GRACE_MS) {
      stopped ??= shutDown(graceMs);
      return stopped;
    },
  };
}
