/** `onceflow start`, `worker` and `migrate`: the commands that open the database themselves. */
import { parseArgs } from 'node:util';
import { createServer, startMetricsServer } from '../app.ts';
import { openDatabase } from '../engine/database.ts';
import { UserError } from '../engine/errors.ts';
import { readEnv } from '../env.ts';
import { createServices } from '../services.ts';
import { migrate } from '../store/migrate.ts';
import { sandboxStartupLine } from '../sandbox/directory.ts';

/** Stops once on SIGINT or SIGTERM, then exits. */
function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const once = async () => {
    if (stopping) return;
    stopping = true;
    await stop();
    process.exit(0);
  };
  process.on('SIGINT', once);
  process.on('SIGTERM', once);
}

export async function start(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'no-worker': { type: 'boolean' } } });
  const env = readEnv();
  const server = await createServer({ env, worker: !values['no-worker'] }).start();
  console.log(`Onceflow is running at ${server.url} (${server.services.db.description})`);
  const { sandbox, publicUrl } = server.services;
  console.log(sandboxStartupLine(sandbox && { baseUrl: publicUrl ?? server.url, smtp: sandbox.smtp }));
  stopOnSignal(() => server.stop());
}

/** A worker process without the app: leases runs from the shared database until SIGTERM; `--metrics-port` serves its /metrics. */
export async function worker(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { concurrency: { type: 'string' }, 'metrics-port': { type: 'string' } } });
  const env = readEnv();
  const concurrency = values.concurrency ? Number(values.concurrency) : undefined;
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency > 0)) {
    throw new UserError('--concurrency takes a whole number above 0.');
  }
  const metricsPort = values['metrics-port'] === undefined ? undefined : Number(values['metrics-port']);
  if (metricsPort !== undefined && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65535)) {
    throw new UserError('--metrics-port takes a port number from 0 to 65535.');
  }
  const services = await createServices(env);
  let metrics: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
  if (metricsPort !== undefined) {
    try {
      metrics = await startMetricsServer(services, metricsPort);
    } catch (error) {
      await services.close();
      throw error;
    }
  }
  const running = services.startWorker({ concurrency });
  console.log(`Onceflow worker ${running.id} is running on ${services.db.description}${metrics ? `; metrics at ${metrics.url}/metrics` : ''}`);
  stopOnSignal(async () => {
    await metrics?.stop();
    await services.close();
  });
}

export async function runMigrate(): Promise<void> {
  const env = readEnv();
  const db = await openDatabase(env.databaseUrl);
  try {
    const applied = await migrate(db);
    console.log(applied.length ? `Applied ${applied.join(', ')} to ${db.description}.` : `${db.description} is up to date.`);
  } finally {
    await db.close();
  }
}

