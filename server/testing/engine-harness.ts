/**
 * An engine in the test process on a real database: services, a worker, and helpers to
 * publish a flow document and wait for runs to settle.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { readEnv } from '../env.ts';
import { createServices, type Services } from '../services.ts';
import type { RunRow, RunStatus } from '../engine/types.ts';
import { createWorker, type Worker } from '../engine/worker.ts';
import { createCrashPoints } from '../engine/crash-points.ts';
import { createNetworkPolicy } from '../engine/network-policy.ts';
import { DEFAULT_ENGINE_CONFIG } from '../engine/step-runtime.ts';
import { systemClock, type Clock } from '../engine/types.ts';
import type { Db } from '../store/db.ts';
import { untilRunStatus } from './wait-for.ts';

export interface EngineHarness {
  services: Services;
  worker: Worker;
  publish(document: unknown): Promise<string>;
  waitForRun(runId: string, statuses?: RunStatus[], timeoutMs?: number): Promise<RunRow>;
  runAndWait(flowId: string, input: unknown): Promise<RunRow>;
  eventTypes(runId: string): Promise<string[]>;
  close(): Promise<void>;
}

export const SETTLED: RunStatus[] = ['succeeded', 'failed', 'needs_review', 'cancelled'];

/** The server's services on a database, with a data folder of their own and silent logs. */
export function createTestServices(databaseUrl: string, env: Record<string, string> = {}): Promise<Services> {
  return createServices(readEnv({ DATABASE_URL: databaseUrl, ONCEFLOW_DATA_DIR: mkdtempSync(join(tmpdir(), 'onceflow-data-')), ...env }), pino({ level: 'silent' }));
}

export interface TestWorkerOptions {
  concurrency: number;
  leaseMs?: number;
  /** The worker's clock; the system's unless a test needs its readings to move in a certain way. */
  clock?: Clock;
  /** How the worker reads the stored secrets before each run; the services' own unless a test slows or breaks it. */
  loadSecrets?: () => Promise<Record<string, string>>;
}

/**
 * A worker of the services' plans and secrets on `db`, which may be the services' own
 * database seen through a wrapper that watches or holds statements.
 */
export function workerOnDatabase(services: Services, db: Db, options: TestWorkerOptions): Worker {
  const leaseMs = options.leaseMs ?? DEFAULT_ENGINE_CONFIG.leaseMs;
  return createWorker(
    {
      db, clock: options.clock ?? systemClock, log: services.log, config: { ...DEFAULT_ENGINE_CONFIG, leaseMs, claimLeaseMs: leaseMs },
      crash: createCrashPoints(undefined), services: { network: createNetworkPolicy() },
    },
    { concurrency: options.concurrency, pollMs: 20, plans: services.plans, loadSecrets: options.loadSecrets ?? (() => services.secrets.values()) },
  );
}

export async function startEngine(databaseUrl: string, env: Record<string, string> = {}): Promise<EngineHarness> {
  const services = await createTestServices(databaseUrl, { ONCEFLOW_POLL_MS: '20', ONCEFLOW_LEASE_MS: '2000', ...env });
  const worker = services.createWorker({ concurrency: 64 });
  worker.start();

  const harness: EngineHarness = {
    services,
    worker,
    async publish(document) {
      const { id } = await services.flows.import(document);
      return id;
    },
    waitForRun(runId, statuses = SETTLED, timeoutMs = 20_000) {
      return untilRunStatus(services.db, runId, statuses, { timeoutMs, everyMs: 15 });
    },
    async runAndWait(flowId, input) {
      const { runId } = await services.runs.start({ flowId, input });
      return harness.waitForRun(runId);
    },
    async eventTypes(runId) {
      const { timeline } = await services.runs.get(runId);
      return timeline.map((event) => event.type);
    },
    async close() {
      await services.close();
    },
  };
  return harness;
}

/** manual trigger → one side-effect http.request (→ optional second step). */
export function invoiceFlow(receiverUrl: string, options: { keyHeader?: boolean; key?: string; onUncertain?: 'review' | 'retry'; timeoutMs?: number; retryMax?: number; name?: string } = {}) {
  return {
    format: 'onceflow/v1',
    name: options.name ?? 'Invoice',
    sampleInput: { order: { id: '4417', total: 120 } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      {
        id: 'invoice', type: 'http.request', position: { x: 200, y: 0 },
        data: {
          label: 'Create invoice', sideEffect: true,
          key: options.key ?? '{{ trigger.body.order.id }}:invoice',
          ...(options.keyHeader === false ? {} : { receiverKeyHeader: 'Idempotency-Key' }),
          onUncertain: options.onUncertain ?? 'review',
          timeoutMs: options.timeoutMs ?? 2000,
          retry: { max: options.retryMax ?? 2, backoff: 'fixed', delayMs: 20 },
          request: {
            method: 'POST', url: `${receiverUrl}/invoices`, headers: { 'content-type': 'application/json' },
            body: '{"ref": "{{ trigger.body.order.id }}:invoice", "total": {{ trigger.body.order.total }}}',
          },
        },
      },
      { id: 'after', type: 'transform', position: { x: 400, y: 0 }, data: { outputs: { order: '{{ trigger.body.order.id }}', done: 'yes' } } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'invoice' },
      { id: 'e2', source: 'invoice', target: 'after' },
    ],
  };
}
