/**
 * The run page of a 10,000-item For each: a real run through the API (one side-effect step
 * per item, to a receiver on loopback that honours keys), then the page opened from its
 * address. Prints when the run's status, its canvas, and the loop's counts with its first
 * page of items were shown; asserts only that every item is counted.
 *
 *   npx vite build && PLAYWRIGHT_CHROMIUM_PATH=/usr/bin/chromium \
 *     npx playwright test --config e2e/bench.config.ts loop-10k
 */
import { startReceiver } from '../../server/testing/receiver.ts';
import { loopFlow, loopInput } from '../../server/testing/loop-flows.ts';
import { seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';
import { expect, test } from '../fixtures/index.ts';
import { RunPage } from '../fixtures/pages/run-page.ts';

const ITEMS = 10_000;

test(`the run page of a ${ITEMS.toLocaleString('en')}-item loop opens quickly`, async ({ page, request }) => {
  const receiver = await startReceiver({ honoursKeys: true });
  try {
    const flowId = await seedFlow(request, loopFlow(receiver.url, { name: 'Ten thousand lines', concurrency: 20 }));
    await trpcCall(request, 'flows.publish', { id: flowId });
    const started = Date.now();
    const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: loopInput('big', ITEMS) });
    await waitForRun(request, runId, ['succeeded'], 120_000);
    const runSeconds = (Date.now() - started) / 1000;
    expect(receiver.effects.size).toBe(ITEMS);

    // Moments are taken inside the page as the DOM changes, from navigation start.
    await page.addInitScript(() => {
      const moments: Record<string, number> = {};
      (window as unknown as { moments: Record<string, number> }).moments = moments;
      new MutationObserver(() => {
        if (moments.status === undefined && document.querySelector('[data-testid="run.status"]')) moments.status = performance.now();
        if (moments.canvas === undefined && document.querySelector('[data-testid="run.node.loop"]')) moments.canvas = performance.now();
      }).observe(document, { subtree: true, childList: true });
    });
    const runPage = new RunPage(page);
    await page.goto(`/runs/${runId}`);
    await expect(runPage.node('loop')).toBeVisible({ timeout: 30_000 });
    const clickAt = await page.evaluate(() => performance.now());
    await runPage.node('loop').click();
    const drawer = runPage.drawer();
    await expect(drawer.getByTestId('loop.summary')).toHaveText(`${ITEMS.toLocaleString('en')} items — ${ITEMS.toLocaleString('en')} done, 0 duplicates stopped, 0 failed`, { timeout: 30_000 });
    await expect(drawer.getByTestId('loop.items').getByRole('listitem').filter({ hasText: /^Item \d+:/ })).toHaveCount(20);
    const itemsShown = await page.evaluate(() => performance.now());
    const moments = await page.evaluate(() => (window as unknown as { moments: Record<string, number> }).moments);
    const figures = {
      items: ITEMS,
      runSeconds: Math.round(runSeconds * 10) / 10,
      itemsPerSecondEndToEnd: Math.round(ITEMS / runSeconds),
      runStatusShownMs: Math.round(moments.status ?? Number.NaN),
      canvasShownMs: Math.round(moments.canvas ?? Number.NaN),
      loopItemsShownAfterClickMs: Math.round(itemsShown - clickAt),
      openedUnderTwoSeconds: (moments.canvas ?? Number.POSITIVE_INFINITY) < 2000,
    };
    console.log(`\nRun page of a ${ITEMS.toLocaleString('en')}-item loop (times from navigation start):\n${JSON.stringify(figures, null, 2)}`);
    test.info().annotations.push({ type: 'figures', description: JSON.stringify(figures) });
  } finally {
    await receiver.close();
  }
});
