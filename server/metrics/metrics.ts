/**
 * The process's /metrics registry (Prometheus text format, prom-client). Two kinds:
 * - state (runs per flow and status, queue depth, oldest queued age) is read from the
 *   database when scraped, so every process reports the same truth and nothing drifts;
 * - events (step outcomes, deliveries, claim latency, take-overs, alerts) are counted
 *   where they happen, in this process, through the engine's EngineMetrics interface.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineMetrics } from '../engine/engine-metrics.ts';
import type { Db } from '../store/db.ts';
import { queueNow, runCountsByFlow } from '../store/metrics.ts';

export interface Metrics {
  registry: Registry;
  /** Handed to the engine (worker, journal, webhook intake). */
  engine: EngineMetrics;
  /** One alert went out (by email, chat, …). */
  countAlertSent(kind: string): void;
}

export function createMetrics(db: Db, now: () => number): Metrics {
  // A registry per process wiring, not the global one: tests run several servers in one process.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  new Gauge({
    name: 'onceflow_runs', help: 'Runs (tests left out) per flow and status, read from the database when scraped.',
    labelNames: ['flow', 'flow_name', 'status'] as const, registers: [registry],
    async collect() {
      const counts = await runCountsByFlow(db);
      this.reset();
      for (const row of counts) this.set({ flow: row.flowId, flow_name: row.flowName, status: row.status }, row.count);
    },
  });
  // Depth and age share one read per scrape: a scrape collects every metric in the same tick.
  let queue: Promise<{ depth: number; oldestQueuedAt: number | null }> | null = null;
  const readQueue = () => (queue ??= queueNow(db, now()).finally(() => {
    queue = null;
  }));
  new Gauge({
    name: 'onceflow_queue_depth', help: 'Runs waiting for a worker: queued, and delays that are due.', registers: [registry],
    async collect() {
      this.set((await readQueue()).depth);
    },
  });
  new Gauge({
    name: 'onceflow_queue_oldest_age_seconds', help: 'How long the oldest run waiting for a worker has waited (0 when none).', registers: [registry],
    async collect() {
      const { oldestQueuedAt } = await readQueue();
      this.set(oldestQueuedAt === null ? 0 : Math.max(0, (now() - oldestQueuedAt) / 1000));
    },
  });

  const steps = new Counter({
    name: 'onceflow_steps_total', help: 'Step outcomes written by this process (tests left out).',
    labelNames: ['outcome'] as const, registers: [registry],
  });
  const deliveries = new Counter({
    name: 'onceflow_webhook_deliveries_total', help: 'Webhook deliveries this process answered, by result and (when refused) reason.',
    labelNames: ['result', 'reason'] as const, registers: [registry],
  });
  const claimLatency = new Histogram({
    name: 'onceflow_claim_latency_seconds', help: 'Time one claim statement took before a side effect could act.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [registry],
  });
  const takeOvers = new Counter({
    name: 'onceflow_lease_takeovers_total', help: 'Runs and claims this process took over after their holder\'s lease lapsed.',
    labelNames: ['kind'] as const, registers: [registry],
  });
  const alerts = new Counter({
    name: 'onceflow_alerts_sent_total', help: 'Alerts this process sent.', labelNames: ['kind'] as const, registers: [registry],
  });
  // Series that exist from the start read 0 instead of missing, so rates and alerts work at once.
  for (const outcome of ['acted', 'duplicate_stopped', 'skipped', 'recovered', 'uncertain'] as const) steps.inc({ outcome }, 0);
  for (const result of ['accepted', 'duplicate'] as const) deliveries.inc({ result }, 0);
  for (const kind of ['run', 'claim'] as const) takeOvers.inc({ kind }, 0);

  const countAlertSent = (kind: string) => alerts.inc({ kind });
  return {
    registry,
    countAlertSent,
    engine: {
      stepOutcome: (outcome) => steps.inc({ outcome }),
      claimLatency: (seconds) => claimLatency.observe(seconds),
      leaseTakeOver: (kind, count = 1) => takeOvers.inc({ kind }, count),
      delivery: (result, reason) => deliveries.inc(reason ? { result, reason } : { result }),
      alertSent: countAlertSent,
    },
  };
}
