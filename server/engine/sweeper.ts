/**
 * Forgets what has outlived its keep time: inbound event ids past their dedupe window,
 * claims past their key lifetime (never one in progress; each leaves an expired-key
 * record), refusals older than 30 days, alerts that were dropped (a day) or sent (30
 * days), and — with ONCEFLOW_RETENTION — ended runs older than the retention with their
 * timelines, old deliveries and old expired-key records.
 * Work is done in small transactions with a pause between them, so requests and workers
 * are never held up behind a long delete. Runs beside every worker (default: once a
 * minute); deleting twice is harmless.
 */
import type { Logger } from 'pino';
import { pruneAlerts } from '../store/alerts.ts';
import type { Db, Sql } from '../store/db.ts';
import { pruneExpiredKeyRecords, sweepExpiredClaims } from '../store/expired-keys.ts';
import { pruneInbound } from '../store/inbound.ts';
import { deleteOldDeliveries, deleteOldRuns } from '../store/retention.ts';
import type { Clock } from './types.ts';
import { repeatEvery, type Repeater } from './worker-lifecycle.ts';

const REJECTIONS_KEPT_MS = 30 * 24 * 3600_000;
/** Rows per transaction: small enough that a batch never holds the database for long. */
export const SWEEP_BATCH = 500;
// Alerts nobody was to receive are kept a day; sent ones as long as their claim (30 days).
const DROPPED_ALERTS_KEPT_MS = 24 * 3600_000;
const SENT_ALERTS_KEPT_MS = 30 * 24 * 3600_000;

export interface SweeperDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  /** ONCEFLOW_RETENTION in ms; undefined keeps runs forever. */
  retentionMs?: number;
  batch?: number;
}

export interface SweepResult {
  /** Event ids and refusals forgotten. */
  inbound: number;
  /** Claims past their time to live, each now an expired-key record. */
  claims: number;
  /** Ended runs deleted by retention, with their timelines and checkpoints. */
  runs: number;
  /** Transactions the sweep took. */
  batches: number;
}

const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createSweeper(deps: SweeperDeps, everyMs = 60_000) {
  const size = deps.batch ?? SWEEP_BATCH;
  let sweeps: Repeater | null = null;
  let stopping = false;

  /** Runs `step` one transaction at a time until a batch comes back short; returns the total. */
  const inBatches = async (result: SweepResult, step: (tx: Sql) => Promise<number>) => {
    let total = 0;
    while (!stopping) {
      const done = await deps.db.transaction(step);
      result.batches++;
      total += done;
      if (done < size) break;
      await breathe();
    }
    return total;
  };

  const sweep = async (): Promise<SweepResult> => {
    const now = deps.clock.now();
    const result: SweepResult = { inbound: 0, claims: 0, runs: 0, batches: 0 };
    result.inbound = await pruneInbound(deps.db, now, now - REJECTIONS_KEPT_MS);
    result.claims = await inBatches(result, (tx) => sweepExpiredClaims(tx, now, size));
    await pruneAlerts(deps.db, now - DROPPED_ALERTS_KEPT_MS, now - SENT_ALERTS_KEPT_MS);
    if (deps.retentionMs !== undefined) {
      const before = now - deps.retentionMs;
      // Runs first, then what only they pointed to; claims are left to their own time to live.
      result.runs = await inBatches(result, (tx) => deleteOldRuns(tx, before, size));
      result.inbound += await inBatches(result, (tx) => deleteOldDeliveries(tx, before, now, size));
      await inBatches(result, (tx) => pruneExpiredKeyRecords(tx, before, size));
    }
    if (result.inbound + result.claims + result.runs > 0) deps.log.info(result, 'swept expired event ids, keys and old runs');
    return result;
  };
  return {
    sweep,
    /** Sweeps every `everyMs`, the first time after one interval; never two sweeps at once. */
    start() {
      stopping = false;
      sweeps = repeatEvery(everyMs, async () => {
        await sweep().catch((error: unknown) => deps.log.warn({ err: error }, 'sweep failed'));
      }, { immediately: false });
    },
    /** Resolves when a sweep in flight, if any, has finished its batch: the database may close after. */
    async stop() {
      stopping = true;
      await sweeps?.stop();
    },
  };
}
