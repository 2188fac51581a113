/**
 * `npm run chaos -- --db sqlite|postgres --workers N --trials T --seed S [--json]`
 * Starts real processes, kills them at random, and checks that nothing was done twice or
 * lost. Exits non-zero on any duplicate or loss. PostgreSQL uses TEST_DATABASE_URL's
 * server (default postgresql://postgres@127.0.0.1:5432/test) and a fresh database.
 */
import { parseArgs } from 'node:util';
import { runChaos } from '../server/chaos/chaos.ts';
import { createPostgresDatabase, createSqliteDatabase } from '../server/testing/databases.ts';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    workers: { type: 'string', default: '0' },
    trials: { type: 'string', default: '20' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    runs: { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
  },
});

if (values.db !== 'sqlite' && values.db !== 'postgres') {
  console.error('--db is sqlite or postgres.');
  process.exit(2);
}
const database = values.db === 'sqlite'
  ? createSqliteDatabase()
  : await createPostgresDatabase(process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test');
const workers = Number(values.workers);
if (values.db === 'sqlite' && workers > 0) console.error('Note: on SQLite the supported shape is one process; extra workers share the file.');

try {
  const report = await runChaos({
    databaseUrl: database.url,
    workers,
    trials: Number(values.trials),
    seed: Number(values.seed),
    runsPerTrial: Number(values.runs),
    log: values.json ? undefined : (line) => console.log(line),
  });
  if (values.json) {
    console.log(JSON.stringify({ db: values.db, workers, seed: Number(values.seed), ...report }, null, 2));
  } else {
    console.log(`\nchaos on ${values.db}, ${workers} extra worker(s), seed ${values.seed}`);
    console.table({
      trials: report.trials, runs: report.runs, kills: report.kills, 'webhook deliveries': report.deliveries, 'events acknowledged': report.eventsAcknowledged, 'effects expected': report.effectsExpected,
      'effects seen': report.effectsSeen, duplicates: report.duplicates, lost: report.lost, uncertain: report.uncertain, failed: report.failed,
    });
    console.log(report.ok ? 'OK: nothing done twice, nothing lost.' : 'FAILED: see duplicates / lost / failed above.');
  }
  process.exitCode = report.ok ? 0 : 1;
} finally {
  await database.drop();
}
