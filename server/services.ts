/**
 * Wires the process: database, migrations, stores and engine services. Transports (HTTP,
 * tRPC, CLI) receive this object; nothing here knows about them.
 */
import { flowPauseService, type FlowPauseService } from './engine/flow-pause.ts';
import { alertService, type AlertService } from './engine/alerts/alert-service.ts';
import { createAlertSender, type AlertSender, type AlertSenderOptions } from './engine/alerts/sender.ts';
import { mkdirSync } from 'node:fs';
import { parseDuration } from '../core/duration.ts';
import type { Logger } from 'pino';
import { createCrashPoints } from './engine/crash-points.ts';
import { flowService, type FlowService } from './engine/flow-service.ts';
import { summariseKeyChanges } from './engine/publish-guard.ts';
import { PlanCache } from './engine/flow-plan.ts';
import type { FlowDocument } from './engine/flow/document.ts';
import { createNetworkPolicy } from './engine/network-policy.ts';
import { runService, type RunService } from './engine/run-service.ts';
import { createOperationRunner } from './engine/recovery/runner.ts';
import { recoveryService, type RecoveryService } from './engine/recovery/service.ts';
import { stepTryService, type StepTryService } from './engine/step-try.ts';
import { testRunService, type TestRunService } from './engine/test-mode/test-runs.ts';
import { proofService, type ProofService } from './engine/test-mode/proof-service.ts';
import { probeLauncher } from './engine/test-mode/probe-launcher.ts';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from './engine/step-runtime.ts';
import { systemClock, type Clock } from './engine/types.ts';
import { createWorker, RUNS_CHANNEL, type Worker, type WorkerOptions } from './engine/worker.ts';
import { inboxService, type InboxService } from './engine/inbox-service.ts';
import { createScheduler } from './engine/scheduler.ts';
import { createSweeper } from './engine/sweeper.ts';
import { createAutoReruns, type AutoReruns } from './engine/auto-reruns.ts';
import { triggerDirectory } from './engine/trigger-directory.ts';
import { webhookIntake, type WebhookIntake } from './engine/webhook-intake.ts';
import { transitionEntity, type EntityTransitionRequest } from './store/entities.ts';
import { flowRunStats } from './store/run-stats.ts';
import { isLoopback } from './auth/access.ts';
import { closeEmailTransports } from './engine/steps/email-send.ts';
import { createSandbox, type Sandbox } from './sandbox/plugin.ts';
import { loadSecretKey } from './engine/secrets/crypto.ts';
import { createMasker } from './engine/secrets/masker.ts';
import { secretService, type SecretService } from './engine/secrets/secret-service.ts';
import { createLogger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import type { Env } from './env.ts';
import { openDatabase, type Db } from './engine/database.ts';
import { fromStoreError } from './engine/errors.ts';
import { flowStore } from './store/flows.ts';
import { migrate } from './store/migrate.ts';

export interface Services {
  env: Env;
  db: Db;
  log: Logger;
  clock: Clock;
  flows: FlowService;
  runs: RunService;
  /** Recoveries of a time window, run in the background as operations (engine/recovery/). */
  recoveries: RecoveryService;
  tests: TestRunService;
  proofs: ProofService;
  inbox: InboxService;
  /** Pausing and resuming flows (engine/flow-pause.ts). */
  pause: FlowPauseService;
  /** Automatic reruns of failed runs (engine/auto-reruns.ts); started with the worker. */
  autoReruns: AutoReruns;
  secrets: SecretService;
  /** Default alerts and alerts that could not be sent (engine/alerts/). */
  alerts: AlertService;
  /** Creates (does not start) an alert sender; startWorker starts one beside the worker. */
  createAlertSender(options?: AlertSenderOptions): AlertSender;
  /** Try this step: a step of the draft rendered against a sample, without a run (engine/step-try.ts). */
  stepTry: StepTryService;
  /** Where this server answers, once it listens (templates point their sandbox calls here). */
  publicUrl?: string;
  /** Built-in stand-in receivers; on by default on loopback, else only with ONCEFLOW_SANDBOX=1. */
  sandbox?: Sandbox;
  webhooks: WebhookIntake;
  plans: PlanCache;
  /** This process's /metrics registry; alerts call metrics.countAlertSent(kind). */
  metrics: Metrics;
  /**
   * Carries on with recoveries left running (a process that stopped or died mid-way) and
   * keeps looking for them; every server and worker process calls it once it serves.
   */
  takeUpRecoveries(): void;
  /** Creates and starts a worker sharing this process's database, with the scheduler and sweeper beside it. */
  startWorker(options?: { concurrency?: number }): Worker;
  /** Creates (does not start) a bare worker: tests and benchmarks drive it themselves. */
  createWorker(options?: { concurrency?: number; lease?: WorkerOptions['lease'] }): Worker;
  /** Wakes this process's worker, if any, when a run was queued. */
  nudge(): void;
  close(): Promise<void>;
}

/** How often a process looks for recoveries nobody is driving (one started by a process that died). */
const RECOVERY_LOOK_MS = 30_000;

export async function createServices(env: Env, givenLog?: Logger): Promise<Services> {
  if (env.databaseUrl.startsWith('file:')) mkdirSync(env.dataDir, { recursive: true });
  // One masker for everything this process stores or logs; the secret service keeps it current.
  const masker = createMasker();
  const log = givenLog ?? createLogger(env.ONCEFLOW_LOG_LEVEL, masker);
  const db = await openDatabase(env.databaseUrl, { masker });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const clock = systemClock;
  const metrics = createMetrics(db, clock.now);
  const store = flowStore(db);
  const plans = new PlanCache(async (versionId) => {
    const version = await store.version(versionId);
    return version ? (JSON.parse(version.document) as FlowDocument) : null;
  });
  const config: EngineConfig = {
    ...DEFAULT_ENGINE_CONFIG, leaseMs: env.ONCEFLOW_LEASE_MS, claimLeaseMs: env.ONCEFLOW_LEASE_MS, keyTtlMs: parseDuration(env.ONCEFLOW_KEY_TTL),
  };
  const crash = createCrashPoints(env.ONCEFLOW_CRASH_AT);
  const network = createNetworkPolicy({ allow: env.ONCEFLOW_HTTP_ALLOW, exposed: !isLoopback(env.HOST) });
  const sandboxOn = env.ONCEFLOW_SANDBOX ?? isLoopback(env.HOST);
  const sandbox = sandboxOn ? createSandbox({ smtpPort: env.ONCEFLOW_SANDBOX_SMTP_PORT, smtpHost: '127.0.0.1' }) : undefined;
  const workers: Worker[] = [];
  const stoppers: (() => void | Promise<void>)[] = [];
  const nudge = () => {
    workers.forEach((worker) => worker.nudge());
    db.notify(RUNS_CHANNEL);
  };
  let secrets: SecretService;
  try {
    secrets = secretService({ db, key: loadSecretKey({ envKey: env.ONCEFLOW_SECRET_KEY, dataDir: env.dataDir }), clock });
  } catch (error) {
    await db.close();
    throw error;
  }
  const loadSecrets = () => secrets.values();
  // The masker learns every stored value before anything is written.
  await loadSecrets().catch((error: unknown) => log.warn({ err: error }, 'stored secrets cannot be read, so they cannot be masked yet'));
  const runs = runService({ db, flows: store, plans, clock, onQueued: nudge });
  const autoReruns = createAutoReruns({ db, clock, log, plans, runs });
  const operations = createOperationRunner({ db, flows: store, plans, clock, log, onQueued: nudge });
  stoppers.push(() => operations.stop());
  const recoveries = recoveryService({ db, flows: store, plans, clock, runner: operations });
  const flows = flowService(
    store,
    clock.now,
    (dayStart, weekStart) => flowRunStats(db, dayStart, weekStart),
    (flowId, live, draft) => summariseKeyChanges(db, flowId, live, draft),
  );
  // The proof's probe opens this same database and secrets in a process of its own.
  const probe = probeLauncher({
    DATABASE_URL: env.databaseUrl, ONCEFLOW_DATA_DIR: env.dataDir, ONCEFLOW_SECRET_KEY: env.ONCEFLOW_SECRET_KEY, HOST: env.HOST,
    ONCEFLOW_HTTP_ALLOW: env.ONCEFLOW_HTTP_ALLOW, ONCEFLOW_LEASE_MS: String(env.ONCEFLOW_LEASE_MS), ONCEFLOW_POLL_MS: '20',
    ONCEFLOW_SANDBOX: 'false', ONCEFLOW_LOG_LEVEL: 'error',
  });
  const proofs = proofService({ db, flows, store, runs, clock, log, probe, nudge });
  stoppers.push(() => proofs.stop());
  const stepServices = {
    network,
    mask: (text: string) => masker.text(text),
    transitionEntity: (request: EntityTransitionRequest) => transitionEntity(db, request).catch((error: unknown) => {
      throw fromStoreError(error);
    }),
  };

  const makeWorker = (options: { concurrency?: number; lease?: WorkerOptions['lease'] } = {}) => {
    const worker = createWorker(
      { db, clock, log, config, crash, services: stepServices, metrics: metrics.engine },
      { concurrency: options.concurrency ?? env.ONCEFLOW_WORKER_CONCURRENCY, pollMs: env.ONCEFLOW_POLL_MS, plans, loadSecrets, ...(options.lease ? { lease: options.lease } : {}) },
    );
    workers.push(worker);
    return worker;
  };

  // Links in alerts: the configured public address first, else where this server listens.
  const baseUrl = () => env.ONCEFLOW_PUBLIC_URL?.split(',')[0]?.trim() || services.publicUrl || `http://${env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST}:${env.PORT}`;
  const makeAlertSender = (options?: AlertSenderOptions) =>
    createAlertSender({ db, clock, log, crash, services: stepServices, secrets: loadSecrets, baseUrl, claimLeaseMs: config.claimLeaseMs, metrics: metrics.engine }, options);

  const services: Services = {
    env,
    db,
    log,
    clock,
    plans,
    metrics,
    flows,
    runs,
    recoveries,
    tests: testRunService({ db, flows, runs }),
    proofs,
    inbox: inboxService({ db, flows: store, runs }),
    pause: flowPauseService({ db, clock, onQueued: nudge }),
    secrets,
    alerts: alertService({ db, clock }),
    createAlertSender: makeAlertSender,
    stepTry: stepTryService({ db, flows: store, secrets: loadSecrets, clock }),
    sandbox,
    webhooks: webhookIntake({
      db, clock, triggers: triggerDirectory(db, plans, clock.now), secrets: loadSecrets, onQueued: nudge, metrics: metrics.engine,
      startNow: () => {
        for (const worker of workers) {
          const place = worker.startNow();
          if (place) return place;
        }
        return null;
      },
    }),
    autoReruns,
    createWorker: makeWorker,
    takeUpRecoveries() {
      // An operation a stopped server left running carries on from its first pending run.
      operations.resumeAll().catch((error: unknown) => log.error({ err: error }, 'the recoveries left running could not be resumed'));
      operations.watch(RECOVERY_LOOK_MS);
    },
    startWorker(options) {
      const worker = makeWorker(options);
      worker.start();
      const scheduler = createScheduler({ db, clock, plans, log, onQueued: nudge });
      const sweeper = createSweeper({ db, clock, log, ...(env.ONCEFLOW_RETENTION ? { retentionMs: parseDuration(env.ONCEFLOW_RETENTION) } : {}) });
      const alerts = makeAlertSender();
      scheduler.start();
      sweeper.start();
      autoReruns.start();
      alerts.start();
      services.takeUpRecoveries();
      stoppers.push(scheduler.stop, sweeper.stop, autoReruns.stop, alerts.stop);
      return worker;
    },
    nudge,
    async close() {
      await Promise.all([...stoppers.map((stop) => stop()), ...workers.map((worker) => worker.stop())]);
      await sandbox?.stop();
      closeEmailTransports();
      await db.close();
    },
  };
  return services;
}
