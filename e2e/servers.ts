/**
 * The browser tests' servers: one per Playwright worker, each on its own port and data
 * folder, so two spec files run side by side without sharing flows, runs or the sandbox's
 * receivers. A worker's tests all go to the server of its parallel index (`fixtures/index.ts`
 * sets `baseURL` from it), one test at a time, as they did when one worker had one server.
 *
 * E2E_WORKERS sets how many. Two by default: a browser test mostly waits (for a page to
 * render, a run to end, a lease to lapse), so on a 2-core machine two workers took the 96
 * tests from 6.0 to 3.9 minutes and three to 3.7, not worth a third Chromium's contention
 * on a slower machine. E2E_PORT sets the first port; the others are ten apart, clear of the
 * measurement config's (3918).
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 2));

const firstPort = Number(process.env.E2E_PORT ?? 3917);

export function e2eServer(index: number): { port: number; url: string; dataDir: string } {
  const port = firstPort + 10 * index;
  return { port, url: `http://127.0.0.1:${port}`, dataDir: `.tmp/e2e-data-${index}` };
}
