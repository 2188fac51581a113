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
import type { PlanCache } from './flow-plan.ts';
import type { Clock } from './types.ts';

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

interface ScheduleRow {
  hook_id: string;
  flow_id: string;
  node_id: string;
  last_fire_at: number | null;
  created_at: number;
  version_id: string | null;
}

export function createScheduler(deps: SchedulerDeps, tickMs = 200) {
  const patterns = new Map<string, Cron>();
  let timer: NodeJS.Timeout | null = null;
  let ticking = false;

  const cronFor = (pattern: string, timezone: string | undefined) => {
    const id = `${pattern}\u0000${timezone ?? ''}`;
    let cron = patterns.get(id);
    if (!cron) {
      cron = new Cron(pattern, { timezone, paused: true });
      patterns.set(id, cron);
    }
    return cron;
  };

  async function fire(row: ScheduleRow, versionId: string, fireAt: number): Promise<void> {
    const now = deps.clock.now();
    const iso = new Date(fireAt).toISOString();
    const eventId = `schedule:${iso}`;
    const result = await deps.db.transaction(async (tx) => {
      const ingested = await ingestDelivery(tx, {
        inboundId: newId('inb'),
        hookId: row.hook_id,
        eventId,
        expiresAt: now + DEDUPE_WINDOW_MS,
        eventData: { eventId, scheduledFor: iso },
        run: {
          id: newId('run'), flowId: row.flow_id, versionId, input: { scheduledFor: iso, firedAt: new Date(now).toISOString() },
          triggerKind: 'schedule', triggerNode: row.node_id, eventId, replayOf: null, createdAt: now, createdBy: 'schedule',
        },
      });
      await tx.run(`UPDATE triggers SET last_fire_at = ? WHERE hook_id = ? AND (last_fire_at IS NULL OR last_fire_at < ?)`, [fireAt, row.hook_id, fireAt]);
      return ingested;
    });
    if (!result.duplicate) deps.onQueued();
  }

  async function tick(): Promise<void> {
    const rows = await deps.db.all<ScheduleRow>(
      `SELECT t.hook_id, t.flow_id, t.node_id, t.last_fire_at, t.created_at,
         (SELECT v.id FROM flow_versions v WHERE v.flow_id = t.flow_id ORDER BY v.version DESC LIMIT 1) AS version_id
       FROM triggers t WHERE t.kind = 'trigger.schedule'`,
    );
    const now = deps.clock.now();
    for (const row of rows) {
      if (!row.version_id) continue;
      const plan = await deps.plans.get(row.version_id);
      const node = plan?.document.nodes.find((candidate) => candidate.id === row.node_id && candidate.type === 'trigger.schedule');
      if (!node) continue;
      try {
        const cron = cronFor(String(node.data.cron), typeof node.data.timezone === 'string' ? node.data.timezone : undefined);
        const latest = cron.previousRuns(1, new Date(now))[0]?.getTime();
        const since = Number(row.last_fire_at ?? row.created_at);
        if (latest === undefined || latest <= since) continue;
        const missed = cron.nextRuns(MAX_CATCH_UP, new Date(since)).map((date) => date.getTime()).filter((time) => time <= latest);
        const catchUp = missed.length < MAX_CATCH_UP && missed[0] !== undefined && missed[0] >= now - CATCH_UP_MS;
        for (const fireAt of catchUp ? missed : [latest]) await fire(row, row.version_id, fireAt);
      } catch (error) {
        deps.log.warn({ err: error, hookId: row.hook_id }, 'schedule could not fire');
      }
    }
  }

  return {
    start() {
      timer = setInterval(() => {
        if (ticking) return;
        ticking = true;
        tick().catch((error) => deps.log.warn({ err: error }, 'scheduler tick failed')).finally(() => (ticking = false));
      }, tickMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
    tick,
  };
}
