/**
 * Webhook acknowledgements per second and their latency (p50, p99) at 32 connections of
 * order events of about 400 bytes (`orderEvent`) with half of the event ids repeated,
 * beside the bare node:http floor on the same database engine, in two shapes: --no-worker
 * (the intake path itself: every 202 is a durably queued run) and plain `start`, where the
 * worker runs the queued runs in the same process as intake, each between two measurements
 * of the floor. With each, the server's resident memory at idle and at its peak. Then end
 * to end: deliveries to finished runs with one side-effect step each.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { migrate } from '../server/store/migrate.ts';
import { openDatabase } from '../server/store/db.ts';
import { startServerProcess, trpc, freePort } from '../server/testing/server-process.ts';
import { startReceiver } from '../server/testing/receiver.ts';
import { webhookEffectFlow, webhookNoteFlow } from '../server/testing/webhook-flows.ts';
import { round } from './stats.ts';
import { SETTLED_RUN_STATUSES } from '../server/engine/types.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The statuses a run ends in, as an SQL list. */
const SETTLED_LIST = SETTLED_RUN_STATUSES.map((status) => `'${status}'`).join(', ');

/** How the server runs while deliveries arrive: intake alone, or `npm start`'s one process with its worker. */
export type IntakeShape = 'no-worker' | 'worker';

export interface WebhookBenchResult {
  database: string;
  shape: IntakeShape;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  floorRequestsPerSecond: number;
  floorP50Ms: number;
  floorP99Ms: number;
  ratio: number;
  errors: number;
  /** From starting the process to its first healthy /healthz. */
  startupSeconds: number;
  /** The server's resident memory before the first delivery, and the most it held under load. */
  idleRssMb: number;
  peakRssMb: number;
  /** Runs the deliveries queued, and how many of them had ended when the load stopped (none without a worker). */
  runsQueued: number;
  runsEnded: number;
  /**
   * CPU the Onceflow process used per delivery during the measured load, all its threads,
   * beside the floor process's per request: the cost that decides the ratio on a machine
   * whose cores the load generator shares, and steadier than requests per second. On
   * PostgreSQL the database's own processes are not counted on either side.
   */
  cpuUsPerRequest: number;
  floorCpuUsPerRequest: number;
}

/** A process's resident set, from /proc (Linux); NaN elsewhere. */
export function rssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return round(kb / 1024, 0);
  } catch {
    return Number.NaN;
  }
}

/** Clock ticks per second of /proc's CPU times (100 on every Linux seen, but asked). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's CPU time so far, user and system, in microseconds, from /proc (Linux); NaN elsewhere. */
function cpuUs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command's name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Runs one measured load and says how much CPU the process used per request it answered. */
async function measureLoad(url: string, pid: number | undefined, seconds: number) {
  const before = cpuUs(pid);
  const result = await load(url, seconds);
  const cpuUsPerRequest = round((cpuUs(pid) - before) / Math.max(1, result.requests.total), 0);
  return { result, cpuUsPerRequest };
}

/** Samples a process's RSS every 100 ms until stopped; returns the peak. */
function sampleRss(pid: number | undefined) {
  let peak = rssMb(pid);
  const timer = setInterval(() => { peak = Math.max(peak, rssMb(pid)); }, 100);
  return () => { clearInterval(timer); return Math.max(peak, rssMb(pid)); };
}

/**
 * The body of order event number `n`, about 400 bytes of JSON as the load recipe of the
 * speed targets has it (an order with its customer, two lines and shipping), the same for
 * every delivery of one event id as a sender's retry is. What varies between orders varies
 * here (ids, number, total, customer), so its searchable values land where real ones do.
 */
export function orderEvent(n: number): string {
  const id = `evt_${n}`;
  const customer = (n * 7919) % 1000;
  return JSON.stringify({
    id, type: 'order.paid', created: 1_765_000_000 + n,
    order: {
      id, number: 10_000 + n, total: 20 + ((n * 37) % 500), currency: 'EUR', status: 'paid',
      customer: { id: `cus_${customer}`, email: `customer${customer}@example.com`, name: `Customer ${customer}` },
      lines: [{ sku: 'TEA-250', name: 'Green tea', quantity: 2, price: 45 }, { sku: 'MUG-01', name: 'Mug', quantity: 1, price: 30 }],
      shipping: { method: 'standard', country: 'DE', postcode: '10115' },
    },
  });
}

function load(url: string, seconds: number) {
  let sent = 0;
  return autocannon({
    url,
    connections: 32,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [{
      setupRequest: (request) => {
        // Every other delivery repeats an id sent before: 50% duplicates.
        sent++;
        const n = sent % 2 === 0 ? 1 + Math.floor(Math.random() * (sent / 2)) : (sent + 1) / 2;
        return { ...request, body: orderEvent(n) };
      },
    }],
  });
}

async function startFloor(databaseUrl: string) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/floor-server.ts'], {
    cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid, stop: () => { child.kill('SIGKILL'); } };
}

/** A flow's runs, and how many have ended: whether the worker kept up with what intake queued. */
async function countRuns(databaseUrl: string, hookId: string): Promise<{ runsQueued: number; runsEnded: number }> {
  const db = await openDatabase(databaseUrl);
  try {
    const row = await db.get<{ queued: number; ended: number }>(
      `SELECT COUNT(*) AS queued, COUNT(CASE WHEN r.status IN (${SETTLED_LIST}) THEN 1 END) AS ended
       FROM runs r JOIN triggers t ON t.flow_id = r.flow_id WHERE t.hook_id = ?`,
      [hookId],
    );
    return { runsQueued: Number(row?.queued ?? 0), runsEnded: Number(row?.ended ?? 0) };
  } finally {
    await db.close();
  }
}

/** A database of its own, dropped when done with. */
export type FreshDatabase = () => Promise<{ url: string; drop(): Promise<void> }>;

interface Measured {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerRequest: number;
}

/** The bare node:http floor on an empty database of its own, warmed up as the shapes are. */
async function measureFloor(freshDatabase: FreshDatabase, seconds: number): Promise<Measured> {
  const database = await freshDatabase();
  const db = await openDatabase(database.url);
  await migrate(db);
  await db.close();
  const floor = await startFloor(database.url);
  try {
    await load(floor.url, 3);
    const { result, cpuUsPerRequest } = await measureLoad(floor.url, floor.pid, seconds);
    return { requestsPerSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, cpuUsPerRequest };
  } finally {
    floor.stop();
    await database.drop();
  }
}

/** One shape of the server on an empty database of its own. */
async function measureShape(freshDatabase: FreshDatabase, label: string, shape: IntakeShape, seconds: number) {
  const database = await freshDatabase();
  const starting = performance.now();
  const server = await startServerProcess({ DATABASE_URL: database.url, ONCEFLOW_LOG_LEVEL: 'silent' }, shape === 'worker' ? ['start'] : ['start', '--no-worker']);
  const startupSeconds = round((performance.now() - starting) / 1000);
  try {
    const { triggers } = await trpc<{ triggers: { hookId: string }[] }>(server.url, 'flows.import', { document: webhookNoteFlow(`Webhook bench ${shape}`) });
    const hookId = triggers[0]!.hookId;
    const hook = `${server.url}/hooks/${hookId}`;
    const idleRssMb = rssMb(server.child.pid);
    const peak = sampleRss(server.child.pid);
    await load(hook, 3);
    const { result, cpuUsPerRequest } = await measureLoad(hook, server.child.pid, seconds);
    const peakRssMb = peak();
    return {
      database: label, shape,
      requestsPerSecond: round(result.requests.average, 0), p50Ms: result.latency.p50, p99Ms: result.latency.p99, cpuUsPerRequest,
      errors: result.errors + result.non2xx, startupSeconds, idleRssMb, peakRssMb, ...await countRuns(database.url, hookId),
    };
  } finally {
    await server.kill();
    await database.drop();
  }
}

/**
 * Intake in each shape, each on a database of its own (the worker-on shape must not start
 * with the runs the --no-worker shape left queued, or its worker would be executing those
 * instead of the runs its own deliveries queue), with the floor measured before each shape
 * and after the last. A shape is judged against the mean of the two floors on either side
 * of it: this machine's speed drifts by a quarter within minutes, and one floor measured
 * after everything put a shape beside a moment that was not its own.
 */
export async function benchWebhooks(freshDatabase: FreshDatabase, label: string, seconds: number, shapes: IntakeShape[] = ['no-worker', 'worker']): Promise<WebhookBenchResult[]> {
  const floors: Measured[] = [await measureFloor(freshDatabase, seconds)];
  const rows: WebhookBenchResult[] = [];
  for (const shape of shapes) {
    const measured = await measureShape(freshDatabase, label, shape, seconds);
    const before = floors.at(-1)!;
    const after = await measureFloor(freshDatabase, seconds);
    floors.push(after);
    const floorRequestsPerSecond = (before.requestsPerSecond + after.requestsPerSecond) / 2;
    rows.push({
      ...measured,
      floorRequestsPerSecond: round(floorRequestsPerSecond, 0),
      floorP50Ms: round((before.p50Ms + after.p50Ms) / 2),
      floorP99Ms: round((before.p99Ms + after.p99Ms) / 2),
      floorCpuUsPerRequest: round((before.cpuUsPerRequest + after.cpuUsPerRequest) / 2, 0),
      ratio: round(measured.requestsPerSecond / floorRequestsPerSecond),
    });
  }
  return rows;
}

export interface EndToEndResult {
  database: string;
  deliveries: number;
  /** The first deliveries after the server started, JIT and caches cold. */
  coldRunsPerSecond: number;
  /** The same number again on the same server: the figure, measured warm as every other one here. */
  runsPerSecond: number;
  /** Effects the receiver applied for the warm deliveries: exactly one per delivery, or the figure is void. */
  effects: number;
  peakRssMb: number;
}

/**
 * Webhook to finished run, in `npm start`'s shape: `count` deliveries with distinct ids to
 * a flow with one side-effect step (a receiver on loopback that honours keys), sent at 32
 * connections; timed from the first delivery until the receiver has applied them all and
 * every run has ended. Twice on one server: first cold, then again once the server has run
 * the flow, as the intake figures above are measured after a warm-up. The clock stops when
 * the last run is seen ended, not when the load generator returns: autocannon settles only
 * at its next one-second sample, which would round every figure down.
 */
export async function benchEndToEnd(databaseUrl: string, label: string, count: number): Promise<EndToEndResult> {
  const receiver = await startReceiver({ honoursKeys: true });
  const server = await startServerProcess({ DATABASE_URL: databaseUrl, ONCEFLOW_LOG_LEVEL: 'silent' }, ['start']);
  const db = await openDatabase(databaseUrl);
  try {
    const { triggers } = await trpc<{ triggers: { hookId: string }[] }>(server.url, 'flows.import', { document: webhookEffectFlow(receiver.url) });
    const hook = `${server.url}/hooks/${triggers[0]!.hookId}`;
    const peak = sampleRss(server.child.pid);
    const cold = await deliverAndFinish(hook, db, receiver, 'cold', count);
    const warm = await deliverAndFinish(hook, db, receiver, 'warm', count);
    const unfinished = await db.get(`SELECT COUNT(*) AS n FROM runs WHERE status <> 'succeeded'`, []);
    if (Number(unfinished?.n) !== 0) throw new Error(`${String(unfinished?.n)} runs did not succeed`);
    return {
      database: label, deliveries: count, coldRunsPerSecond: Math.round(count / cold.seconds), runsPerSecond: Math.round(count / warm.seconds),
      effects: warm.effects, peakRssMb: peak(),
    };
  } finally {
    await db.close();
    await server.kill();
    await receiver.close();
  }
}

/** Sends `count` deliveries with ids `<batch>_1…` and waits for their runs; their seconds and the effects the receiver applied for them. */
async function deliverAndFinish(hook: string, db: Awaited<ReturnType<typeof openDatabase>>, receiver: Awaited<ReturnType<typeof startReceiver>>, batch: string, count: number) {
  // The flow's key is `{{ trigger.body.id }}:effect`: this batch's effects are the keys with its prefix.
  const effectsOfBatch = () => [...receiver.effects].reduce((sum, [key, n]) => sum + (key.startsWith(`${batch}_`) ? n : 0), 0);
  const started = performance.now();
  let sent = 0;
  const sending = autocannon({
    url: hook, connections: 32, amount: count, method: 'POST', headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ id: `${batch}_${++sent}`, order: { id: sent, total: 120 } }) }) }],
  });
  let failed: unknown;
  sending.catch((error: unknown) => { failed = error; });
  // Finished means every run has ended, not only that its effect arrived: a run is still
  // recording its step for a moment after the receiver answered.
  for (;;) {
    if (failed) throw failed;
    if (effectsOfBatch() >= count) {
      const open = await db.get(`SELECT COUNT(*) AS n FROM runs WHERE status NOT IN (${SETTLED_LIST})`, []);
      if (Number(open?.n) === 0) break;
    }
    if (performance.now() - started > 120_000) throw new Error(`after 2 minutes the receiver had ${effectsOfBatch()} of ${count} effects of the ${batch} deliveries`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const result = await sending;
  if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx + result.errors} ${batch} deliveries were not acknowledged`);
  return { seconds, effects: effectsOfBatch() };
}
