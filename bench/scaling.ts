/**
 * Runs per second of the reference flow with 1, 2 and 4 worker processes on one
 * PostgreSQL database, beside the floor of the same writes made by plain pg statements.
 * Runs are queued first through the API; only their execution is timed.
 */
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { readEnv } from '../server/env.ts';
import { createServices } from '../server/services.ts';
import { openDatabase } from '../server/store/db.ts';
import { createPostgresDatabase } from '../server/testing/databases.ts';
import { startReceiver } from '../server/testing/receiver.ts';
import { startServerProcess, trpc, type ServerProcess } from '../server/testing/server-process.ts';
import { floorRuns, referenceFlow, waitAllSettled } from './runs.ts';
import { round } from './stats.ts';

export interface ScalingRow {
  workers: number;
  runs: number;
  runsPerSecond: number;
  floorRunsPerSecond: number;
  ratio: number;
}

export async function benchScaling(baseUrl: string, count: number, workerCounts = [1, 2, 4]): Promise<ScalingRow[]> {
  const receiver = await startReceiver({ honoursKeys: true });
  const rows: ScalingRow[] = [];
  try {
    for (const workers of workerCounts) {
      const database = await createPostgresDatabase(baseUrl);
      const processes: ServerProcess[] = [];
      try {
        const env = { DATABASE_URL: database.url, ONCEFLOW_LOG_LEVEL: 'silent', ONCEFLOW_WORKER_CONCURRENCY: '32' };
        const api = await startServerProcess(env, ['start', '--no-worker']);
        processes.push(api);
        const { id: flowId } = await trpc<{ id: string }>(api.url, 'flows.import', { document: referenceFlow(receiver.url) });
        const services = await createServices(readEnv({ DATABASE_URL: database.url }), pino({ level: 'silent' }));
        for (let index = 0; index < count; index++) await services.runs.start({ flowId, input: { order: { id: `o${index}` } } });
        const versionId = (await services.flows.versions(flowId))[0]!.id;
        const db = await openDatabase(database.url);
        const started = performance.now();
        for (let index = 0; index < workers; index++) processes.push(await startServerProcess(env, ['worker']));
        await waitAllSettled(db);
        const seconds = (performance.now() - started) / 1000;
        // Workers would lease the floor's rows: they stop before the floor is measured.
        for (const process of processes.splice(0)) await process.kill();
        const floor = await floorRuns(database.url, flowId, versionId, Math.min(count, 1000));
        await db.close();
        await services.close();
        rows.push({ workers, runs: count, runsPerSecond: round(count / seconds, 0), floorRunsPerSecond: round(floor, 0), ratio: round(count / seconds / floor) });
      } catch (error) {
        console.error(`scaling with ${workers} worker(s) failed:`, error);
        throw error;
      } finally {
        for (const process of processes) await process.kill();
        await database.drop();
      }
    }
  } finally {
    await receiver.close();
  }
  return rows;
}
