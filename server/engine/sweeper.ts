/**
 * Forgets what has outlived its keep time: inbound event ids past their dedupe window,
 * claims past their key lifetime (never one in progress), refusals older than 30 days, and
 * alerts that were dropped (a day) or sent (30 days).
 * Runs beside every worker (default: once a minute); deleting twice is harmless.
 */
import type { Logger } from 'pino';
import { pruneAlerts } from '../store/alerts.ts';
import { pruneExpiredClaims } from '../store/claims.ts';
import type { Db } from '../store/db.ts';
import { pruneInbound } from '../store/inbound.ts';
import type { Clock } from './types.ts';
import { repeatEvery, type Repeater } from './worker-lifecycle.ts';

const REJECTIONS_KEPT_MS = 30 * 24 * 3600_000;
// Alerts nobody was to receive are kept a day; sent ones as long as their claim (30 days).
const DROPPED_ALERTS_KEPT_MS = 24 * 3600_000;
const SENT_ALERTS_KEPT_MS = 30 * 24 * 3600_000;

export function createSweeper(deps: { db: Db; clock: Clock; log: Logger }, everyMs = 60_000) {
  let sweeps: Repeater | null = null;
  const sweep = async () => {
    const now = deps.clock.now();
    const removed = (await pruneInbound(deps.db, now, now - REJECTIONS_KEPT_MS)) + (await pruneExpiredClaims(deps.db, now))
      + (await pruneAlerts(deps.db, now - DROPPED_ALERTS_KEPT_MS, now - SENT_ALERTS_KEPT_MS));
    if (removed > 0) deps.log.info({ removed }, 'swept expired event ids and claims');
    return removed;
  };
  return {
    sweep,
    /** Sweeps every `everyMs`, the first time after one interval; never two sweeps at once. */
    start() {
      sweeps = repeatEvery(everyMs, async () => {
        await sweep().catch((error: unknown) => deps.log.warn({ err: error }, 'sweep failed'));
      }, { immediately: false });
    },
    /** Resolves when a sweep in flight, if any, has finished: the database may close after. */
    async stop() {
      await sweeps?.stop();
    },
  };
}
