import { defineConfig } from 'vitest/config';

// Kept apart from vite.config.ts so the web root and Playwright specs stay out of it.
export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'server/**/*.test.ts', 'web/**/*.test.ts', 'scripts/**/*.test.ts'],
    exclude: ['node_modules', 'dist', 'e2e'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Database and process tests share ports and files; files run one at a time.
    fileParallelism: false,
    pool: 'forks',
  },
});
