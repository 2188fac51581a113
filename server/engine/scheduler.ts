/**
 * Schedule triggers. Every fire time becomes an inbound event with id
 * `schedule:<fire time>`, so any number of workers (or a restart) may notice the same fire
 * and the unique (trigger, event id) index still lets exactly one run start.
 *
 * Missed fires: a fire missed by less than a minute (a slow tick on a busy machine) is
 * caught up, each once. After longer downtime only the latest missed fire runs, once: a
 * schedule that fires every minute does not replay a night of minutes after an outage.
 */
import { Cron } from 'croner';
import type { Logger } from 'pino';
import { newId } from '../ids.ts';
import type { Db } from '../store/db.ts';
import { ingestDelivery } from '../store/inbound.ts';
import { listScheduleTriggers, recordScheduleFire, type ScheduleTrigger } from '../store/triggers.ts';
import type { PlanCache } from './flow-plan.ts';
import type { Clock } from './types.ts';
import { repeatEvery, type Repeater } from './worker-lifecycle.ts';

const DEDUPE_WINDOW_MS = 30 * 24 * 3600_000;
const CATCH_UP_MS = 60_000;
const MAX_CATCH_UP = 60;

export interface SchedulerDeps {
  db: Db;
  clock: Clock;
  plans: PlanCache;
  log: Logger;
  onQueued(): void;
}

export function createScheduler(deps: SchedulerDeps, tickMs = 200) {
  const patterns = new Map<string, Cron>();
  let ticks: Repeater | null = null;

  const cronFor = (pattern: string, timezone: string | undefined) => {
    const id = `${pattern}\u0000${timezone ?? ''}`;
    let cron = patterns.get(id);
    if (!cron) {
      cron = new Cron(pattern, { timezone, paused: true });
      patterns.set(id, cron);
    }
    return cron;
  };

  async function fire(trigger: ScheduleTrigger, versionId: string, fireAt: number): Promise<void> {
    const now = deps.clock.now();
    const iso = new Date(fireAt).toISOString();
    const eventId = `schedule:${iso}`;
    const result = await deps.db.transaction(async (tx) => {
      const ingested = await ingestDelivery(tx, {
        inboundId: newId('inb'),
        hookId: trigger.hookId,
        eventId,
        expiresAt: now + DEDUPE_WINDOW_MS,
        eventData: { eventId, scheduledFor: iso },
        run: {
          id: newId('run'), flowId: trigger.flowId, versionId, input: { scheduledFor: iso, firedAt: new Date(now).toISOString() },
          triggerKind: 'schedule', triggerNode: trigger.nodeId, eventId, replayOf: null, createdAt: now, createdBy: 'schedule',
        },
      });
      await recordScheduleFire(tx, trigger.hookId, fireAt);
      return ingested;
    });
    if (!result.duplicate) deps.onQueued();
  }

  async function tick(): Promise<void> {
    const triggers = await listScheduleTriggers(deps.db);
    const now = deps.clock.now();
    for (const trigger of triggers) {
      if (!trigger.versionId) continue;
      const plan = await deps.plans.get(trigger.versionId);
      const node = plan?.document.nodes.find((candidate) => candidate.id === trigger.nodeId && candidate.type === 'trigger.schedule');
      if (!node) continue;
      try {
        const cron = cronFor(String(node.data.cron), typeof node.data.timezone === 'string' ? node.data.timezone : undefined);
        const latest = cron.previousRuns(1, new Date(now))[0]?.getTime();
        const since = trigger.lastFireAt ?? trigger.createdAt;
        if (latest === undefined || latest <= since) continue;
        const missed = cron.nextRuns(MAX_CATCH_UP, new Date(since)).map((date) => date.getTime()).filter((time) => time <= latest);
        const catchUp = missed.length < MAX_CATCH_UP && missed[0] !== undefined && missed[0] >= now - CATCH_UP_MS;
        for (const fireAt of catchUp ? missed : [latest]) await fire(trigger, trigger.versionId, fireAt);
      } catch (error) {
        deps.log.warn({ err: error, hookId: trigger.hookId }, 'schedule could not fire');
      }
    }
  }

  return {
    /** Ticks every `tickMs`, the first time after one interval; never two ticks at once. */
    start() {
      ticks = repeatEvery(tickMs, async () => {
        await tick().catch((error: unknown) => deps.log.warn({ err: error }, 'scheduler tick failed'));
      }, { immediately: false });
    },
    /** Resolves when a tick in flight, if any, has finished: the database may close after. */
    async stop() {
      await ticks?.stop();
    },
    tick,
  };
}
