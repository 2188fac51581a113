/**
 * Runs per second of the reference flow (manual → transform → two side-effect HTTP steps
 * to an in-process receiver → transform) and the cost of one claim, beside a floor: the
 * same rows written with plain driver statements in the same process and run.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { performance } from 'node:perf_hooks';
import { readEnv } from '../server/env.ts';
import { createServices } from '../server/services.ts';
import { newId } from '../server/ids.ts';
import { tryClaim, settleClaim } from '../server/store/claims.ts';
import { startReceiver } from '../server/testing/receiver.ts';
import type { Db } from '../server/store/db.ts';
import { summarize, round } from './stats.ts';

export function referenceFlow(receiverUrl: string) {
  const step = (id: string, x: number) => ({
    id, type: 'http.request', position: { x, y: 0 },
    data: {
      sideEffect: true, key: `{{ trigger.body.order.id }}:${id}`, receiverKeyHeader: 'Idempotency-Key',
      request: { method: 'POST', url: `${receiverUrl}/${id}`, body: `{"ref": "{{ trigger.body.order.id }}:${id}"}` },
    },
  });
  return {
    format: 'onceflow/v1',
    name: 'Reference flow',
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'prep', type: 'transform', position: { x: 100, y: 0 }, data: { outputs: { order: '{{ trigger.body.order.id }}' } } },
      step('invoice', 200),
      step('notify', 300),
      { id: 'done', type: 'transform', position: { x: 400, y: 0 }, data: { outputs: { invoice: '{{ steps.invoice.output.body.id }}' } } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'prep' }, { id: 'e2', source: 'prep', target: 'invoice' },
      { id: 'e3', source: 'invoice', target: 'notify' }, { id: 'e4', source: 'notify', target: 'done' },
    ],
  };
}

export interface RunsBenchResult {
  database: string;
  runs: number;
  runsPerSecond: number;
  floorRunsPerSecond: number;
  ratio: number;
  claimP50Ms: number;
  claimP99Ms: number;
  floorClaimP50Ms: number;
}

/** Resolves once no run is queued, running or waiting. */
export async function waitAllSettled(db: Db): Promise<void> {
  for (;;) {
    // Counting the unsettled runs walks a shrinking part of the status index.
    const row = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE status IN ('queued', 'running', 'waiting')`);
    if (Number(row?.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The floor: the rows one reference run writes, with plain driver statements and no
 * Onceflow code in between — one transaction per point where the engine must be durable
 * (the run, each claim, each step's record, the end), as a careful hand-written worker would.
 */
interface PlainDriver {
  transaction(statements: [string, unknown[]][]): Promise<void>;
  /** One statement on its own (autocommit). */
  statement(text: string, values: unknown[]): Promise<void>;
  close(): Promise<void>;
}

function plainDriver(url: string): PlainDriver {
  if (url.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // pool.end() resolves before its sockets close, so dropping the database right after can
    // terminate one of them; at teardown that is expected, not a failure of the benchmark.
    pool.on('error', () => {});
    // Prepared once per connection, as a careful hand-written worker would.
    const names = new Map<string, string>();
    const prepared = (text: string, values: unknown[]) => {
      let index = 0;
      const numbered = text.replace(/\?/g, () => `$${++index}`);
      let name = names.get(numbered);
      if (!name) names.set(numbered, (name = `floor_${names.size}`));
      return { name, text: numbered, values };
    };
    return {
      async transaction(statements) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          for (const [text, values] of statements) await client.query(prepared(text, values));
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      },
      async statement(text, values) {
        await pool.query(prepared(text, values));
      },
      close: () => pool.end(),
    };
  }
  const db = new Database(url.replace(/^file:/, ''), { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const prepared = new Map<string, Database.Statement>();
  const run = db.transaction((statements: [string, unknown[]][]) => {
    for (const [text, values] of statements) {
      let statement = prepared.get(text);
      if (!statement) prepared.set(text, (statement = db.prepare(text)));
      statement.run(...values);
    }
  });
  return {
    async transaction(statements) {
      run.immediate(statements);
    },
    async statement(text, values) {
      let statement = prepared.get(text);
      if (!statement) prepared.set(text, (statement = db.prepare(text)));
      statement.run(...values);
    },
    async close() {
      db.close();
    },
  };
}

async function floorRun(driver: PlainDriver, flowId: string, versionId: string, index: number): Promise<void> {
  const runId = newId('run');
  const now = Date.now();
  const event = (type: string, nodeId: string | null): unknown[] => [runId, type, nodeId, 1, null, now];
  const events = (rows: unknown[][]): [string, unknown[]] =>
    [`INSERT INTO timeline_events (run_id, type, node_id, attempt, data, created_at) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`, rows.flat()];
  await driver.transaction([
    [`INSERT INTO runs (id, seq, flow_id, version_id, status, input, trigger_kind, attempt, lease_fence, created_at) VALUES (?, ?, ?, ?, 'queued', ?, 'manual', 1, 0, ?)`,
      [runId, 1_000_000 + index, flowId, versionId, JSON.stringify({ order: { id: `f${index}` } }), now]],
    events([event('run.queued', null)]),
  ]);
  await driver.transaction([[`UPDATE runs SET status = 'running', lease_owner = 'w', lease_until = ?, lease_fence = lease_fence + 1 WHERE id = ?`, [now + 30000, runId]]]);
  for (const node of ['invoice', 'notify']) {
    await driver.transaction([[`INSERT INTO claims (scope, key, status, fingerprint, request, owner_run_id, owner_node_id, fence, lease_until, expires_at, created_at, updated_at) VALUES ('floor', ?, 'in_progress', 'h', '{}', ?, ?, 1, ?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING`, [`${runId}:${node}`, runId, node, now, now, now, now]]]);
    await driver.transaction([
      [`UPDATE claims SET status = 'succeeded', output = '{}' WHERE scope = 'floor' AND key = ? AND fence = 1`, [`${runId}:${node}`]],
      [`INSERT INTO checkpoints (run_id, node_id, status, output, attempt, created_at) VALUES (?, ?, 'succeeded', '{}', 1, ?)`, [runId, node, now]],
      events([event('step.started', node), event('step.succeeded', node)]),
    ]);
  }
  await driver.transaction([
    [`UPDATE runs SET status = 'succeeded' WHERE id = ?`, [runId]],
    [`INSERT INTO checkpoints (run_id, node_id, status, output, attempt, created_at) VALUES (?, 'prep', 'succeeded', '{}', 1, ?), (?, 'done', 'succeeded', '{}', 1, ?)`, [runId, now, runId, now]],
    events([event('run.started', null), event('step.started', 'prep'), event('step.succeeded', 'prep'), event('step.started', 'done'), event('step.succeeded', 'done'), event('run.succeeded', null)]),
  ]);
}

/** Floor runs per second: the writes of `count` reference runs, 16 at a time like a busy worker. */
export async function floorRuns(databaseUrl: string, flowId: string, versionId: string, count: number): Promise<number> {
  const driver = plainDriver(databaseUrl);
  try {
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < count) await floorRun(driver, flowId, versionId, next++);
    }));
    return count / ((performance.now() - started) / 1000);
  } finally {
    await driver.close();
  }
}

export async function benchRuns(databaseUrl: string, label: string, count: number): Promise<RunsBenchResult> {
  const services = await createServices(readEnv({ DATABASE_URL: databaseUrl, ONCEFLOW_POLL_MS: '5' }), pino({ level: 'silent' }));
  const receiver = await startReceiver({ honoursKeys: true });
  try {
    const { id: flowId } = await services.flows.import(referenceFlow(receiver.url));
    const version = (await services.flows.versions(flowId))[0]!;

    // Warm-up, then the measured batch queued up front so only execution is timed.
    const warm = services.createWorker({ concurrency: 64 });
    for (let index = 0; index < 200; index++) await services.runs.start({ flowId, input: { order: { id: `warm${index}` } } });
    warm.start();
    await waitAllSettled(services.db);
    await warm.stop();

    for (let index = 0; index < count; index++) await services.runs.start({ flowId, input: { order: { id: `o${index}` } } });
    const worker = services.createWorker({ concurrency: Number(process.env.BENCH_CONCURRENCY ?? 64) });
    const started = performance.now();
    worker.start();
    await waitAllSettled(services.db);
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    const failed = await services.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE status <> 'succeeded'`);
    if (Number(failed?.n) > 0) throw new Error(`${failed?.n} benchmark runs did not succeed`);

    // The claim itself: insert-or-nothing plus its fenced settle, one after another.
    const claimSamples: number[] = [];
    for (let index = 0; index < 2000; index++) {
      const now = Date.now();
      const t0 = performance.now();
      const fence = await services.db.durably((sql) => tryClaim(sql, { scope: 'bench', key: `k${index}`, fingerprint: 'h', request: {}, runId: 'r', nodeId: 'n', leaseUntil: now + 30000, expiresAt: now + 86400000, now }));
      claimSamples.push(performance.now() - t0);
      await settleClaim(services.db, { scope: 'bench', key: `k${index}`, fence: fence! }, { status: 'succeeded', output: {}, now });
    }
    const floorSamples: number[] = [];
    const plain = plainDriver(databaseUrl);
    for (let index = 0; index < 2000; index++) {
      const t0 = performance.now();
      await plain.statement(`INSERT INTO claims (scope, key, status, fingerprint, request, owner_run_id, owner_node_id, fence, lease_until, expires_at, created_at, updated_at) VALUES ('floorclaim', ?, 'in_progress', 'h', '{}', 'r', 'n', 1, 0, 0, 0, 0) ON CONFLICT (scope, key) DO NOTHING`, [`k${index}`]);
      floorSamples.push(performance.now() - t0);
    }
    await plain.close();

    const floorCount = Math.min(count, 2000);
    const floorRunsPerSecond = await floorRuns(databaseUrl, flowId, version.id, floorCount);

    const claim = summarize(claimSamples);
    const floorClaim = summarize(floorSamples);
    const runsPerSecond = count / seconds;
    return {
      database: label,
      runs: count,
      runsPerSecond: round(runsPerSecond, 0),
      floorRunsPerSecond: round(floorRunsPerSecond, 0),
      ratio: round(runsPerSecond / floorRunsPerSecond),
      claimP50Ms: round(claim.p50, 3),
      claimP99Ms: round(claim.p99, 3),
      floorClaimP50Ms: round(floorClaim.p50, 3),
    };
  } finally {
    await receiver.close();
    await services.close();
  }
}
