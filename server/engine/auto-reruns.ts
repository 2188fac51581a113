/**
 * "If a run fails, try it again after 1 minute, 10 minutes and 1 hour" (a flow's
 * settings.retryFailedRuns). A failure writes the next rerun's time with the run's ending
 * (run-journal.ts); this looks for due ones every few seconds and reruns each through the
 * ordinary rerun (run-service.ts), on the version a person's rerun would use, from its
 * checkpoints. The move from failed to queued is the guard: with several workers looking,
 * only one rerun happens. The last failure schedules nothing; alerts take it from there.
 */
import type { Logger } from 'pino';
import { retryLaterDelays } from '../../core/retry-later.ts';
import { dueAutoReruns } from '../store/auto-reruns.ts';
import type { Db } from '../store/db.ts';
import { UserError } from './errors.ts';
import type { PlanCache } from './flow-plan.ts';
import type { RunService } from './run-service.ts';
import type { Clock } from './types.ts';
import { repeatEvery, type Repeater } from './worker-lifecycle.ts';

/** Due reruns started per look; the next look takes the rest. */
const BATCH = 100;

export interface AutoRerunDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  plans: PlanCache;
  runs: Pick<RunService, 'rerun'>;
}

export function createAutoReruns(deps: AutoRerunDeps, everyMs = 5_000) {
  let looks: Repeater | null = null;

  /** Reruns the failed runs whose automatic rerun is due at `now`; returns how many it started. */
  const runDue = async (now = deps.clock.now()): Promise<number> => {
    let started = 0;
    for (const due of await dueAutoReruns(deps.db, now, BATCH)) {
      try {
        // How many the run's version allows: its settings when it failed.
        const of = retryLaterDelays((await deps.plans.get(due.versionId))?.document.settings).length;
        await deps.runs.rerun(due.id, 'automatic', undefined, { automatic: { number: due.number, of } });
        started++;
      } catch (error) {
        // Another worker (or a person) moved the run first: nothing to do.
        if (!(error instanceof UserError)) deps.log.warn({ err: error, runId: due.id }, 'automatic rerun failed to start');
      }
    }
    return started;
  };

  return {
    runDue,
    start() {
      looks = repeatEvery(everyMs, async () => {
        await runDue().catch((error: unknown) => deps.log.warn({ err: error }, 'looking for automatic reruns failed'));
      }, { immediately: false });
    },
    async stop() {
      await looks?.stop();
    },
  };
}

export type AutoReruns = ReturnType<typeof createAutoReruns>;
