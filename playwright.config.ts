import { defineConfig } from '@playwright/test';
import { E2E_WORKERS, e2eServer } from './e2e/servers.ts';

// Drives the system Chromium (Playwright cannot download its own browser here) against the
// built app: one server per worker (e2e/servers.ts), each started fresh on its own port and
// data folder. Spec files are shared out between the workers; a file's tests run in order.
// Each test's baseURL is its worker's server, set by the specs' `test` (e2e/fixtures/index.ts).
const chromium = process.env.PLAYWRIGHT_CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e/specs',
  timeout: 30_000,
  workers: E2E_WORKERS,
  retries: 0,
  use: {
    launchOptions: {
      executablePath: chromium,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
    trace: 'retain-on-failure',
  },
  webServer: Array.from({ length: E2E_WORKERS }, (_, index) => {
    const { port, url, dataDir } = e2eServer(index);
    return {
      command: `rm -rf ${dataDir} && node --max-semi-space-size=8 --heap-growing-percent=50 bin/onceflow.mjs start`,
      url: `${url}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: { PORT: String(port), HOST: '127.0.0.1', ONCEFLOW_DATA_DIR: dataDir, DATABASE_URL: '', ONCEFLOW_SANDBOX_SMTP_PORT: '0' },
    };
  }),
});
