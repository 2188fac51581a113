import { defineConfig } from 'vitest/config';

// Kept apart from vite.config.ts so the web root and Playwright specs stay out of it.
export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'server/**/*.test.ts', 'web/**/*.test.ts', 'scripts/**/*.test.ts'],
    exclude: ['node_modules', 'dist', 'e2e'],
    // The servers and commands the tests start run from the server's bundle, built first
    // when stale (server/testing/build-server-bundle.ts says why).
    globalSetup: ['server/testing/build-server-bundle.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two files at a time, whatever the number of cores. Files share nothing: each test
    // makes its own databases (a temporary SQLite file, a PostgreSQL database of its own),
    // data folders and config folders, and its servers take ports the system picks. Most of
    // a file's time is waiting — for processes to start, leases to lapse, receivers to
    // answer — so on a 2-core machine two at a time took the suite from 450 s to 221 s with
    // PostgreSQL and from 215 s to 120–129 s without, every test passing.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
  },
});
