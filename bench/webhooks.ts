/**
 * Webhook acknowledgements per second and their latency (p50, p99) at 32 connections with
 * half of the event ids repeated, beside the bare node:http floor on the same database
 * engine. The server runs with --no-worker so the figure is the intake path itself: every
 * 202 is a durably queued run.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { migrate } from '../server/store/migrate.ts';
import { openDatabase } from '../server/store/db.ts';
import { startServerProcess, trpc, freePort } from '../server/testing/server-process.ts';
import { round } from './stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface WebhookBenchResult {
  database: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  floorRequestsPerSecond: number;
  floorP50Ms: number;
  floorP99Ms: number;
  ratio: number;
  errors: number;
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
        const id = sent % 2 === 0 ? `evt_${Math.floor(Math.random() * (sent / 2))}` : `evt_${(sent + 1) / 2}`;
        return { ...request, body: JSON.stringify({ id, type: 'order.paid', order: { id, total: 120 } }) };
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
  return { url: `http://127.0.0.1:${port}/`, stop: () => { child.kill('SIGKILL'); } };
}

export async function benchWebhooks(databaseUrl: string, label: string, seconds: number): Promise<WebhookBenchResult> {
  const server = await startServerProcess({ DATABASE_URL: databaseUrl, ONCEFLOW_LOG_LEVEL: 'silent' }, ['start', '--no-worker']);
  let floor: Awaited<ReturnType<typeof startFloor>> | undefined;
  try {
    const document = {
      format: 'onceflow/v1', name: 'Webhook bench', sampleInput: { id: 'evt_1' },
      nodes: [
        { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
        { id: 'note', type: 'transform', position: { x: 200, y: 0 }, data: { outputs: { order: '{{ trigger.body.order.id }}' } } },
      ],
      edges: [{ id: 'e1', source: 'hook', target: 'note' }],
    };
    const { triggers } = await trpc<{ triggers: { hookId: string }[] }>(server.url, 'flows.import', { document });
    const hook = `${server.url}/hooks/${triggers[0]!.hookId}`;
    await load(hook, 2);
    const result = await load(hook, seconds);
    await server.kill();

    const db = await openDatabase(databaseUrl);
    await migrate(db);
    await db.close();
    floor = await startFloor(databaseUrl);
    await load(floor.url, 2);
    const floorResult = await load(floor.url, seconds);
    return {
      database: label,
      requestsPerSecond: round(result.requests.average, 0),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      floorRequestsPerSecond: round(floorResult.requests.average, 0),
      floorP50Ms: floorResult.latency.p50,
      floorP99Ms: floorResult.latency.p99,
      ratio: round(result.requests.average / floorResult.requests.average),
      errors: result.errors + result.non2xx,
    };
  } finally {
    await server.kill();
    floor?.stop();
  }
}
