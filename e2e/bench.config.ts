import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

// Measurements and documentation screenshots, kept out of the test suite: they assert
// little and print figures. Run: npx vite build && npx playwright test --config e2e/bench.config.ts
const port = Number(process.env.BENCH_PORT ?? 3918);
const chromium = process.env.PLAYWRIGHT_CHROMIUM_PATH ?? '/usr/bin/chromium';
const root = fileURLToPath(new URL('..', import.meta.url));

export default defineConfig({
  testDir: 'bench',
  testMatch: /\.(bench|shots)\.ts$/,
  timeout: 180_000,
  workers: 1,
  retries: 0,
  reporter: 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1600, height: 900 },
    launchOptions: {
      executablePath: chromium,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: {
    command: 'rm -rf .tmp/bench-data && node --max-semi-space-size=8 --heap-growing-percent=50 bin/onceflow.mjs start',
    cwd: root,
    url: `http://127.0.0.1:${port}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: { PORT: String(port), HOST: '127.0.0.1', ONCEFLOW_DATA_DIR: '.tmp/bench-data', DATABASE_URL: '' },
  },
});
