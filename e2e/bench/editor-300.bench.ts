/**
 * How the editor copes with a large flow: a 300-step flow is seeded and opened three ways —
 * a first visit in a fresh browser (nothing of the app cached), the same address again
 * (code cached, as for anyone who has used the app before), and a click in the flow list
 * (the app already running) — then one step is dragged across the canvas. The canvas
 * draws the steps in view; the overview map shows all of them, so "opened" means the
 * first steps are drawn and the map holds all 300. Prints the figures; asserts only that
 * the flow opened, answered a click and moved.
 *
 *   npx vite build && PLAYWRIGHT_CHROMIUM_PATH=/usr/bin/chromium \
 *     npx playwright test --config e2e/bench.config.ts editor-300
 */
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/index.ts';
import { seedFlow, trpcCall } from '../fixtures/api.ts';
import { boxOf, center } from '../fixtures/geometry.ts';
import { EditorPage } from '../fixtures/pages/editor-page.ts';
import { largeFlowDocument } from './large-flow.ts';
import { startFrameRecording, stopFrameRecording } from './frames.ts';

const STEPS = 300;
const DRAG_MOVES = 90;

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length);
  return { frames: samples.length, mean: round(mean), p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1) ?? 0), over33ms: samples.filter((value) => value > 33.4).length };
}

const round = (value: number) => Math.round(value * 10) / 10;

const now = (page: Page) => page.evaluate(() => performance.now());

/**
 * From `since` (page time): when the first steps are drawn with all 300 on the map
 * (opened), and how long a click on a step then takes to show its settings, from the
 * pointer going down to the settings being there, measured in the page (so the test
 * driver's own checks before it clicks are not counted). Interactive is their sum.
 */
async function openedAndInteractive(page: Page, since: number) {
  await expect(page.locator('.react-flow__node[data-id="s0"]')).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('.react-flow__minimap-node')).toHaveCount(STEPS);
  const drawn = await now(page);
  await page.evaluate(() => {
    document.addEventListener('pointerdown', (event) => ((window as unknown as { pressedAt: number }).pressedAt = event.timeStamp), { capture: true, once: true });
  });
  await page.locator('.react-flow__node[data-id="s2"]').click();
  await expect(page.getByTestId('inspector').getByLabel('Label', { exact: true })).toHaveValue('Tell the team 2');
  const clickToSettings = await page.evaluate(() => performance.now() - (window as unknown as { pressedAt: number }).pressedAt);
  const stepsDrawn = await page.locator('.react-flow__node').count();
  const openedMs = Math.round(drawn - since);
  return { openedMs, clickToSettingsMs: Math.round(clickToSettings), interactiveMs: Math.round(openedMs + clickToSettings), stepsDrawn };
}

test(`a ${STEPS}-step flow opens and drags smoothly`, async ({ page, request }) => {
  const flowId = await seedFlow(request, largeFlowDocument(STEPS));
  const editor = new EditorPage(page);

  // The server has answered requests before (it is the browser that is new): one read of
  // the flow and of the page, so the figure is not the server's own start-up.
  await trpcCall(request, 'flows.get', { id: flowId }, 'query');
  await request.get('/');

  // 1. First visit: a fresh browser, times from navigation start.
  await page.goto(`/flows/${flowId}`);
  const firstVisit = await openedAndInteractive(page, 0);

  // 2. The same address again: the app's code is cached.
  await page.goto('/');
  await page.goto(`/flows/${flowId}`);
  const revisit = await openedAndInteractive(page, 0);

  // 3. From the flow list, with the app running: times from the click.
  await page.goto('/');
  const link = page.getByTestId('flow-list.row').getByRole('link', { name: `Large flow (${STEPS} steps)`, exact: true });
  await expect(link).toBeVisible();
  const clickedAt = await now(page);
  await link.click();
  const fromList = await openedAndInteractive(page, clickedAt);

  // Frame times while one step follows the pointer, one pointer move per frame.
  const target = page.locator('.react-flow__node[data-id="s1"]');
  await startFrameRecording(page);
  const start = await center(target);
  const before = await boxOf(target);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  const dragStart = await now(page);
  for (let i = 1; i <= DRAG_MOVES; i++) {
    await page.mouse.move(start.x + i * 3, start.y + i * 1.5);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  }
  await page.mouse.up();
  const dragEnd = await now(page);
  const frames = await stopFrameRecording(page);
  const after = await boxOf(target);
  expect(after.x).toBeGreaterThan(before.x + 100);
  await editor.waitSaved();

  // Fit view draws every step: how long that takes once, on request.
  const fitAt = await now(page);
  await page.getByRole('button', { name: 'Fit View' }).click();
  await expect(page.locator('.react-flow__node')).toHaveCount(STEPS, { timeout: 60_000 });
  const fitViewMs = Math.round((await now(page)) - fitAt);

  const figures = {
    steps: STEPS,
    connections: STEPS - 1,
    firstVisit,
    revisit,
    fromList,
    fitViewAllStepsDrawnMs: fitViewMs,
    dragMoves: DRAG_MOVES,
    dragDurationMs: Math.round(dragEnd - dragStart),
    frameTimesMs: stats(frames),
  };
  console.log(`\nEditor with ${STEPS} steps (opened: first steps drawn, all on the map; interactive: a click shows a step's settings):\n${JSON.stringify(figures, null, 2)}`);
  test.info().annotations.push({ type: 'figures', description: JSON.stringify(figures) });
  await trpcCall(request, 'flows.delete', { id: flowId });
});
