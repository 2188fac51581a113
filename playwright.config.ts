import { defineConfig } from '@playwright/test';

// Drives the system Chromium (Playwright cannot download its own browser here) against the
// built app, started fresh on its own port and data folder.
const port = Number(process.env.E2E_PORT ?? 3917);
const chromium = process.env.PLAYWRIGHT_CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e/specs',
  timeout: 30_000,
  workers: 1,
  retries: 0,
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: chromium,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: `rm -rf .tmp/e2e-data && node --max-semi-space-size=8 --heap-growing-percent=50 bin/onceflow.mjs start`,
    url: `http://127.0.0.1:${port}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: { PORT: String(port), HOST: '127.0.0.1', ONCEFLOW_DATA_DIR: '.tmp/e2e-data', DATABASE_URL: '', ONCEFLOW_SANDBOX_SMTP_PORT: '0' },
  },
});
