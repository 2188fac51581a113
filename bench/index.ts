/**
 * `npm run bench [-- --json] [-- --runs N] [-- --only runs|loop|webhooks|e2e|run-page|recovery|scaling|assets]`: the engine's speed beside plain-driver floors,
 * on SQLite and, when TEST_DATABASE_URL is set, PostgreSQL. Not part of `npm test`.
 */
import { parseArgs } from 'node:util';
import { createPostgresDatabase, createSqliteDatabase } from '../server/testing/databases.ts';
import { benchRuns, type RunsBenchResult } from './runs.ts';
import { benchEndToEnd, benchWebhooks, type EndToEndResult, type WebhookBenchResult } from './webhooks.ts';
import { buildServerBundleIfStale } from '../scripts/server-bundle.mjs';
import { benchScaling, type ScalingRow } from './scaling.ts';
import { benchRunPage, type RunPageRow } from './run-page.ts';
import { benchAssets, printAssets, type AssetsBenchResult } from './assets.ts';
import { benchLoop, type LoopBenchResult } from './loop.ts';
import { benchRecovery, type RecoveryBenchResult } from './recovery.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    runs: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '10' },
    only: { type: 'string' },
    items: { type: 'string', default: '10000' },
    'recovery-runs': { type: 'string', default: '10000' },
  },
});
const count = Number(values.runs);
const seconds = Number(values.seconds);
// Server processes run as `npm start` runs them: from the bundle, built now if stale.
await buildServerBundleIfStale();

const results: { endToEnd: EndToEndResult[]; runs: RunsBenchResult[]; loop: LoopBenchResult[]; webhooks: WebhookBenchResult[]; scaling: ScalingRow[]; runPage: RunPageRow[]; recovery: RecoveryBenchResult[]; assets?: AssetsBenchResult } = { endToEnd: [], runs: [], loop: [], webhooks: [], scaling: [], runPage: [], recovery: [] };
const wanted = (section: string) => !values.only || values.only === section;

async function withDatabase(create: () => Promise<{ url: string; drop(): Promise<void> }>, body: (url: string) => Promise<void>) {
  const database = await create();
  try {
    await body(database.url);
  } finally {
    await database.drop();
  }
}

const engines: { label: string; create: () => Promise<{ url: string; drop(): Promise<void> }> }[] = [
  { label: 'sqlite', create: async () => createSqliteDatabase() },
];
if (process.env.TEST_DATABASE_URL) {
  const base = process.env.TEST_DATABASE_URL;
  engines.push({ label: 'postgresql', create: () => createPostgresDatabase(base) });
} else if (!values.json) {
  console.log('PostgreSQL skipped: set TEST_DATABASE_URL to measure it too.');
}
for (const engine of engines) {
  if (wanted('runs')) await withDatabase(engine.create, async (url) => { results.runs.push(await benchRuns(url, engine.label, count)); });
  if (wanted('loop')) {
    // The loop is judged beside the reference flow's runs/s from the same process and database.
    if (!results.runs.some((row) => row.database === engine.label)) await withDatabase(engine.create, async (url) => { results.runs.push(await benchRuns(url, engine.label, count)); });
    for (const concurrency of [1, 20]) await withDatabase(engine.create, async (url) => { results.loop.push(await benchLoop(url, engine.label, Number(values.items), concurrency)); });
  }
  if (wanted('webhooks')) results.webhooks.push(...await benchWebhooks(engine.create, engine.label, seconds));
  if (wanted('webhooks') || wanted('e2e')) await withDatabase(engine.create, async (url) => { results.endToEnd.push(await benchEndToEnd(url, engine.label, 5000)); });
  if (wanted('run-page')) await withDatabase(engine.create, async (url) => { results.runPage.push(...await benchRunPage(url, engine.label)); });
  if (wanted('recovery')) await withDatabase(engine.create, async (url) => { results.recovery.push(await benchRecovery(url, engine.label, Number(values['recovery-runs']))); });
}

if (wanted('assets')) results.assets = benchAssets();
if (process.env.TEST_DATABASE_URL && wanted('scaling')) results.scaling = await benchScaling(process.env.TEST_DATABASE_URL, Math.min(count, 2000));

if (values.json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  if (results.webhooks.length) {
    console.log('\nWebhook acknowledgements, 32 connections, order events of about 400 bytes, 50% repeated event ids: intake alone (--no-worker) and npm start\'s shape');
    console.log('(worker on, running what it queues), beside a bare node:http floor (the mean of one measured just before the shape and one just after); the server\'s start to a healthy /healthz, its RSS at idle and at its peak;');
    console.log('runs ended: of the runs queued during warm-up and load, how many had ended when the load stopped; CPU µs: the server\'s process (all its threads,');
    console.log('not the database\'s) per delivery during the load, and the floor process\'s per request');
    console.table(results.webhooks.map((row) => ({
      database: row.database, shape: row.shape, 'req/s': row.requestsPerSecond, 'p50 ms': row.p50Ms, 'p99 ms': row.p99Ms,
      'floor req/s': row.floorRequestsPerSecond, 'floor p99 ms': row.floorP99Ms, ratio: row.ratio, 'CPU µs': row.cpuUsPerRequest, 'floor CPU µs': row.floorCpuUsPerRequest, errors: row.errors,
      'start s': row.startupSeconds, 'idle MB': row.idleRssMb, 'peak MB': row.peakRssMb, 'runs ended': `${row.runsEnded} of ${row.runsQueued}`,
    })));
  }
  if (results.endToEnd.length) {
    console.log('\nWebhook to finished run: 5,000 deliveries, one side-effect step each (receiver on loopback), worker on; runs/s once the');
    console.log('server has run the flow (the figure, warm as every other one here), and for its first 5,000 after start (cold)');
    console.table(results.endToEnd.map((row) => ({ database: row.database, deliveries: row.deliveries, 'runs/s': row.runsPerSecond, 'cold runs/s': row.coldRunsPerSecond, 'receiver effects': row.effects, 'peak MB': row.peakRssMb })));
  }
  if (results.scaling.length) {
    console.log('\nScaling on PostgreSQL: the reference flow with N worker processes');
    console.table(results.scaling.map((row) => ({ workers: row.workers, runs: row.runs, 'runs/s': row.runsPerSecond, 'floor runs/s': row.floorRunsPerSecond, ratio: row.ratio })));
  }
  if (results.runs.length) console.log('\nRuns of the reference flow (manual → transform → 2 side-effect HTTP steps → transform)');
  if (results.runs.length) console.table(results.runs.map((row) => ({
    database: row.database,
    runs: row.runs,
    'runs/s': row.runsPerSecond,
    'floor runs/s': row.floorRunsPerSecond,
    ratio: row.ratio,
    'claim p50 ms': row.claimP50Ms,
    'claim p99 ms': row.claimP99Ms,
    'floor claim p50 ms': row.floorClaimP50Ms,
  })));
  if (results.loop.length) {
    console.log('\nA For each over a list, one side-effect HTTP step per item (in-process receiver); ratio: items/s over the reference');
    console.log("flow's side-effect steps/s (its runs/s × 2) measured beside it");
    console.table(results.loop.map((row) => {
      const reference = results.runs.find((runs) => runs.database === row.database);
      return {
        database: row.database, items: row.items, 'at once': row.concurrency, 'items/s': row.itemsPerSecond,
        'runs/s beside': reference?.runsPerSecond, ratio: reference ? Math.round((row.itemsPerSecond / (reference.runsPerSecond * 2)) * 100) / 100 : undefined,
        'memory growth MB': row.memoryGrowthMb, 'run page s': row.runPageSeconds, 'items page s': row.itemsPageSeconds,
      };
    }));
  }
  if (results.runPage.length) {
    console.log('\nOpening a run page as its timeline grows: the run answer, the first timeline page (2,000 events) and one live update,');
    console.log('beside the whole-timeline read the page repeated every second before it was paged and pushed');
    console.table(results.runPage.map((row) => ({
      database: row.database, events: row.events,
      'answer bytes': row.answerBytes, 'answer stmts': row.answerStatements,
      'first page bytes': row.firstPageBytes, 'first page stmts': row.firstPageStatements,
      'live update bytes': row.liveUpdateBytes, 'live update stmts': row.liveUpdateStatements,
      'whole read bytes': row.wholeReadBytes, 'whole read stmts': row.wholeReadStatements,
    })));
  }
  if (results.recovery.length) {
    console.log('\nA recovery of failed runs (rerun on the latest version): the summed preview, runs queued per second,');
    console.log('and the runs list over HTTP while it previews and queues, beside the same requests before it (targets: preview under 3 s on SQLite,');
    console.log('500 runs/s, p99 under 100 ms)');
    console.table(results.recovery.map((row) => ({
      database: row.database, runs: row.runs, 'preview s': row.previewSeconds, 'runs/s queued': row.runsPerSecondQueued,
      'API requests': row.apiRequests, 'API p50 ms': row.apiP50Ms, 'API p99 ms': row.apiP99Ms, 'p99 ms before': row.baselineP99Ms,
    })));
  }
  if (results.assets) printAssets(results.assets);
}
