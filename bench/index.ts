/**
 * `npm run bench [-- --json] [-- --runs N]`: the engine's speed beside plain-driver floors,
 * on SQLite and, when TEST_DATABASE_URL is set, PostgreSQL. Not part of `npm test`.
 */
import { parseArgs } from 'node:util';
import { createPostgresDatabase, createSqliteDatabase } from '../server/testing/databases.ts';
import { benchRuns, type RunsBenchResult } from './runs.ts';

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, runs: { type: 'string', default: '3000' } } });
const count = Number(values.runs);
const results: { runs: RunsBenchResult[] } = { runs: [] };

const sqlite = createSqliteDatabase();
try {
  results.runs.push(await benchRuns(sqlite.url, 'sqlite', count));
} finally {
  await sqlite.drop();
}
if (process.env.TEST_DATABASE_URL) {
  const postgres = await createPostgresDatabase(process.env.TEST_DATABASE_URL);
  try {
    results.runs.push(await benchRuns(postgres.url, 'postgresql', count));
  } finally {
    await postgres.drop();
  }
} else if (!values.json) {
  console.log('PostgreSQL skipped: set TEST_DATABASE_URL to measure it too.');
}

if (values.json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  console.log('\nRuns of the reference flow (manual → transform → 2 side-effect HTTP steps → transform)');
  console.table(results.runs.map((row) => ({
    database: row.database,
    runs: row.runs,
    'runs/s': row.runsPerSecond,
    'floor runs/s': row.floorRunsPerSecond,
    ratio: row.ratio,
    'claim p50 ms': row.claimP50Ms,
    'claim p99 ms': row.claimP99Ms,
    'floor claim p50 ms': row.floorClaimP50Ms,
  })));
}
