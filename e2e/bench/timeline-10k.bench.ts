/**
 * How the run view copes with a very long timeline: a real run is made through the API,
 * then 10,000 more events are written straight into the benchmark server's SQLite file,
 * and the run is opened. Prints the figures; asserts only that every event arrived and
 * that the list keeps just a window of rows in the page.
 *
 *   npx vite build && PLAYWRIGHT_CHROMIUM_PATH=/usr/bin/chromium \
 *     npx playwright test --config e2e/bench.config.ts timeline-10k
 */
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../fixtures/index.ts';
import { seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';
import { RunPage } from '../fixtures/pages/run-page.ts';
import { startFrameRecording, stopFrameRecording } from './frames.ts';

const EVENTS = 10_000;
// The folder bench.config.ts gives the benchmark server.
const DATABASE = process.env.BENCH_DATABASE ?? fileURLToPath(new URL('../../.tmp/bench-data/onceflow.db', import.meta.url));

/**
 *   start (manual) ──▶ pick (transform) ──▶ invoice (sandbox payments, keyed by order)
 */
function invoiceFlow(baseURL: string) {
  return {
    format: 'onceflow/v1',
    name: 'Long timeline',
    sampleInput: { order: { id: '9001', total: 42 } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Start' } },
      { id: 'pick', type: 'transform', position: { x: 320, y: 0 }, data: { label: 'Pick the order', outputs: { order: '{{ trigger.body.order.id }}' } } },
      {
        id: 'invoice',
        type: 'http.request',
        position: { x: 640, y: 0 },
        data: {
          label: 'Create invoice',
          sideEffect: true,
          key: '{{ trigger.body.order.id }}:invoice',
          receiverKeyHeader: 'Idempotency-Key',
          request: { method: 'POST', url: `${baseURL}/sandbox/payments/invoices`, headers: { 'content-type': 'application/json' }, body: '{"order": "{{ trigger.body.order.id }}"}' },
        },
      },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'pick' }, { id: 'e2', source: 'pick', target: 'invoice' }],
  };
}

/** A plausible mix: mostly repeated deliveries and stopped duplicates, with retries, skips and successes. */
function seedEvents(runId: string, otherRunId: string, start: number) {
  const db = new Database(DATABASE);
  db.pragma('busy_timeout = 5000');
  const insert = db.prepare('INSERT INTO timeline_events (run_id, type, node_id, attempt, data, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const write = db.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const at = start + i * 250;
      const kind = i % 5;
      if (kind === 0) insert.run(runId, 'webhook.duplicate', 'start', 1, JSON.stringify({ eventId: `evt_${i}`, repeat: 2 + (i % 7) }), at);
      else if (kind === 1) insert.run(runId, 'step.duplicate', 'invoice', 1, JSON.stringify({ key: '9001:invoice', scope: 'bench:invoice', runId: otherRunId, doneAt: at - 60_000, output: { status: 200 } }), at);
      else if (kind === 2) insert.run(runId, 'step.retry_scheduled', 'invoice', 1, JSON.stringify({ message: 'The receiver did not answer in time.', retry: 1 + (i % 3), delayMs: 200 }), at);
      else if (kind === 3) insert.run(runId, 'step.skipped', 'pick', 2, JSON.stringify({ reason: 'checkpoint', attempt: 1, status: 'succeeded' }), at);
      else insert.run(runId, 'step.succeeded', 'pick', 1, JSON.stringify({ output: { order: String(9000 + i) } }), at);
    }
  });
  write();
  db.close();
}

test(`a run with ${EVENTS.toLocaleString('en')} timeline events opens quickly`, async ({ page, request, baseURL }) => {
  const flowId = await seedFlow(request, invoiceFlow(baseURL!));
  await trpcCall(request, 'flows.publish', { id: flowId });
  const first = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId });
  await waitForRun(request, first.runId, ['succeeded']);
  const { runId } = await trpcCall<{ runId: string }>(request, 'runs.replay', { runId: first.runId });
  await waitForRun(request, runId, ['succeeded']);
  const before = (await trpcCall<{ events: unknown[] }>(request, 'runs.timeline', { runId, limit: 5000 }, 'query')).events.length;
  seedEvents(runId, first.runId, Date.now() - EVENTS * 250);
  const total = before + EVENTS;

  // Moments are taken inside the page as the DOM changes, from navigation start.
  await page.addInitScript(() => {
    const moments: Record<string, number> = {};
    (window as unknown as { moments: Record<string, number> }).moments = moments;
    const note = (name: string, reached: boolean) => {
      if (reached && moments[name] === undefined) moments[name] = performance.now();
    };
    new MutationObserver(() => {
      note('firstRows', document.querySelector('[role="list"][aria-label="Timeline"] [role="listitem"]') !== null);
      note('status', document.querySelector('[data-testid="run.status"]') !== null);
      note('canvas', document.querySelector('[data-testid^="run.node."]') !== null);
      const count = document.querySelector('[data-testid="timeline.count"]')?.textContent?.replace(/\D/g, '');
      if (count) moments[`count:${count}`] ??= performance.now();
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const runPage = new RunPage(page);
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId('timeline.count')).toHaveText(`${total.toLocaleString('en-US')} events`, { timeout: 30_000 });
  await expect(runPage.node('invoice')).toBeVisible();
  const moments = await page.evaluate(() => (window as unknown as { moments: Record<string, number> }).moments);
  const rowsInPage = await runPage.timeline().getByRole('listitem').count();
  expect(rowsInPage).toBeLessThan(80);
  const allEventsMs = moments[`count:${total}`] ?? Number.NaN;

  // Frame times while scrolling through the middle of the timeline with the wheel.
  const viewport = page.locator('.timeline__viewport');
  await viewport.evaluate((element) => { element.scrollTop = element.scrollHeight / 2; });
  await viewport.hover();
  await startFrameRecording(page);
  for (let i = 0; i < 60; i++) {
    await page.mouse.wheel(0, 400);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  }
  const frames = await stopFrameRecording(page);
  const jumpStart = await page.evaluate(() => performance.now());
  await page.getByRole('button', { name: 'Latest event' }).click();
  await expect(runPage.timeline().getByRole('listitem').last()).toHaveAttribute('aria-posinset', String(total));
  const jumpMs = (await page.evaluate(() => performance.now())) - jumpStart;

  const sorted = [...frames].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  const figures = {
    events: total,
    firstRowsShownMs: Math.round(moments.firstRows ?? Number.NaN),
    runStatusShownMs: Math.round(moments.status ?? Number.NaN),
    canvasShownMs: Math.round(moments.canvas ?? Number.NaN),
    allEventsLoadedMs: Math.round(allEventsMs),
    rowsInPage,
    scrollFrames: { frames: frames.length, p50: at(0.5), p95: at(0.95), max: at(1) },
    jumpToLatestMs: Math.round(jumpMs),
    allEventsUnderTwoSeconds: allEventsMs < 2000,
  };
  console.log(`\nRun view with ${total.toLocaleString('en')} timeline events (times from navigation start):\n${JSON.stringify(figures, null, 2)}`);
  test.info().annotations.push({ type: 'figures', description: JSON.stringify(figures) });
});
