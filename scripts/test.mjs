// `npm test`: typecheck, lint, unit and integration tests (SQLite, and PostgreSQL when
// TEST_DATABASE_URL is set), then the Playwright suite in the system Chromium. Ends with
// one plain line "N passed, N failed" summing every suite, so a run that executed no
// test is visible as such.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const bin = (name) => join('node_modules', '.bin', name);
const tmp = '.tmp';
mkdirSync(tmp, { recursive: true });
let passed = 0;
let failed = 0;
let skipped = 0;
const notes = [];

function step(title, command, args, env = {}) {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

// 1. Types.
if (step('Typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']) === 0) passed += 1;
else failed += 1;

// 2. Lint, with the boundaries between server/store, server/engine, the adapters and web/.
if (step('Lint', bin('eslint'), ['--max-warnings', '0', '.']) === 0) passed += 1;
else failed += 1;

// 3. Unit and integration tests.
if (!process.env.TEST_DATABASE_URL) {
  notes.push('PostgreSQL suite skipped: set TEST_DATABASE_URL=postgresql://… to run the database tests on PostgreSQL too.');
  console.log(`\n${notes.at(-1)}`);
}
const vitestJson = join(tmp, 'vitest.json');
rmSync(vitestJson, { force: true });
const vitestStatus = step('Unit and integration tests', bin('vitest'), [
  'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`,
]);
if (existsSync(vitestJson)) {
  const report = JSON.parse(readFileSync(vitestJson, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  if (vitestStatus !== 0 && report.numFailedTests === 0) failed += 1;
} else if (vitestStatus !== 0) failed += 1;

// 4. Browser tests against the built app.
const chromium = [process.env.PLAYWRIGHT_CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  .find((path) => path && existsSync(path));
if (!chromium) {
  const message = 'Browser tests skipped: no Chromium found (install it with `apt-get install -y chromium` or set PLAYWRIGHT_CHROMIUM_PATH).';
  console.log(`\n${message}`);
  notes.push(message);
  if (process.env.REQUIRE_E2E === '1') {
    console.log('REQUIRE_E2E=1: browser tests are required, so this counts as a failure.');
    failed += 1;
  }
} else {
  if (step('Build the web app', bin('vite'), ['build', '--logLevel', 'warn']) !== 0) failed += 1;
  // The browser tests run the server as `npm start` does: from its bundle.
  // Usually built already, by the unit tests' setup (server/testing/build-server-bundle.ts).
  if (step('Build the server', process.execPath, ['scripts/server-bundle.mjs', '--if-stale']) !== 0) failed += 1;
  const playwrightJson = join(tmp, 'playwright.json');
  rmSync(playwrightJson, { force: true });
  const status = step('Browser tests (Playwright)', bin('playwright'), ['test', '--reporter=list,json'], {
    PLAYWRIGHT_CHROMIUM_PATH: chromium,
    PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson,
  });
  if (existsSync(playwrightJson)) {
    const stats = JSON.parse(readFileSync(playwrightJson, 'utf8')).stats ?? {};
    passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
    failed += stats.unexpected ?? 0;
    skipped += stats.skipped ?? 0;
    if (status !== 0 && !stats.unexpected) failed += 1;
  } else if (status !== 0) failed += 1;
}

console.log('');
for (const note of notes) console.log(note);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
