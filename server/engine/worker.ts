/**
 * The worker: leases runs from the database and executes them, up to `concurrency` at a
 * time. Nothing is coordinated in memory: the lease UPDATE decides who runs what, a
 * heartbeat keeps held runs and claims alive, and a run whose lease lapses (its worker
 * died) is leased again by anyone and resumes from its checkpoints.
 *
 * The worker must release or keep heartbeating every lease it holds on every path: a run
 * it forgets stays invisible until its lease lapses.
 */
import { hostname } from 'node:os';
import { newId } from '../ids.ts';
import { extendClaimLease } from '../store/claims.ts';
import { heartbeatRuns, leaseRuns } from '../store/runs.ts';
import { announceWorker, retireWorker } from '../store/workers.ts';
import type { PlanCache } from './flow-plan.ts';
import { executeRun } from './run-executor.ts';
import { RunJournal } from './run-journal.ts';
import type { ClaimTracker, EngineDeps } from './step-runtime.ts';
import type { RunRow } from './types.ts';

export interface WorkerOptions {
  concurrency: number;
  /** How often an idle worker looks for work without being woken (default: 250 ms). */
  pollMs: number;
  plans: PlanCache;
  loadSecrets(): Promise<Record<string, string>>;
  /** Lets the process wake the worker as soon as a run is queued. */
  onIdle?: () => void;
}

/** The channel on which PostgreSQL wakes idle workers when a run is queued. */
export const RUNS_CHANNEL = 'onceflow_runs';

export interface Worker {
  readonly id: string;
  start(): void;
  nudge(): void;
  /** Stops leasing, lets running runs finish for up to `graceMs`, then releases the rest. */
  stop(graceMs?: number): Promise<void>;
  activeCount(): number;
}

type ClaimRef = { scope: string; key: string; fence: number };

export function createWorker(base: Omit<EngineDeps, 'claims'>, options: WorkerOptions): Worker {
  const id = newId(`wrk_${hostname().replace(/[^a-z0-9]/gi, '').slice(0, 12) || 'host'}`);
  const active = new Map<string, { run: RunRow; abort: AbortController; done: Promise<void> }>();
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
  let running = false;
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  let heartbeat: NodeJS.Timeout | null = null;
  let unlisten: (() => Promise<void>) | null = null;

  const nudge = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };

  async function execute(run: RunRow, abort: AbortController): Promise<void> {
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
      await executeRun(deps, { run, plan, secrets, signal: abort.signal });
    } catch (error) {
      log.error({ err: error, runId: run.id }, 'worker failed to execute run');
    } finally {
      active.delete(run.id);
      nudge();
    }
  }

  /** Ends a run that cannot start at all, with the reason on its timeline. */
  async function failRun(run: RunRow, message: string): Promise<void> {
    const journal = new RunJournal(db, run, clock, config.leaseMs);
    journal.event('run.failed', null, { message });
    await journal.flush({ ending: { status: 'failed', error: message } }).catch((error) => log.warn({ err: error, runId: run.id }, 'could not fail run'));
  }

  async function beat(): Promise<void> {
    const now = clock.now();
    await announceWorker(db, { id, host: hostname(), pid: process.pid, now }).catch(() => {});
    const held = [...active.values()].map(({ run }) => ({ id: run.id, fence: run.leaseFence }));
    try {
      const lost = await heartbeatRuns(db, held, now + config.leaseMs);
      for (const runId of lost) active.get(runId)?.abort.abort();
      for (const claim of claims) await extendClaimLease(db, claim, now + config.claimLeaseMs);
    } catch (error) {
      log.warn({ err: error }, 'heartbeat failed');
    }
  }

  async function run(): Promise<void> {
    while (running) {
      const free = options.concurrency - active.size;
      let leased: RunRow[] = [];
      // When busy, lease in batches: one statement per finished run would cost more than the run.
      if (free > 0 && (free >= batch || active.size === 0)) {
        try {
          leased = await leaseRuns(db, { workerId: id, limit: free, leaseMs: config.leaseMs, now: clock.now() });
        } catch (error) {
          log.warn({ err: error }, 'leasing runs failed; retrying');
        }
        for (const leasedRun of leased) {
          const abort = new AbortController();
          const entry = { run: leasedRun, abort, done: Promise.resolve() };
          active.set(leasedRun.id, entry);
          entry.done = execute(leasedRun, abort);
        }
      }
      if (leased.length === 0 || options.concurrency - active.size < batch) {
        if (active.size === 0) options.onIdle?.();
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, options.pollMs).unref();
        });
        wake = null;
      }
    }
  }

  return {
    id,
    start() {
      if (running) return;
      running = true;
      heartbeat = setInterval(() => void beat(), Math.max(50, Math.floor(config.leaseMs / 3)));
      heartbeat.unref();
      void beat();
      // PostgreSQL wakes idle workers as soon as a run is queued anywhere; polling is the fallback.
      db.listen(RUNS_CHANNEL, nudge).then((stop) => (unlisten = stop)).catch((error) => log.warn({ err: error }, 'cannot listen for new runs; polling only'));
      loop = run();
    },
    nudge,
    activeCount: () => active.size,
    async stop(graceMs = 10_000) {
      running = false;
      nudge();
      await loop;
      const pending = [...active.values()];
      const finished = Promise.all(pending.map((entry) => entry.done));
      const timedOut = await Promise.race([finished.then(() => false), clock.sleep(graceMs).then(() => true)]);
      if (timedOut) {
        for (const entry of active.values()) entry.abort.abort();
        for (const entry of active.values()) {
          // Make what is left leasable at once instead of after its lease lapses.
          await db.run(`UPDATE runs SET lease_until = 0 WHERE id = ? AND lease_fence = ? AND status = 'running'`, [entry.run.id, entry.run.leaseFence]);
        }
      }
      if (heartbeat) clearInterval(heartbeat);
      await unlisten?.();
      await retireWorker(db, id).catch(() => {});
    },
  };
}
