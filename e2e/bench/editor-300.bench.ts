/**
 * How the editor copes with a large flow: a 300-step flow is seeded, opened and one step
 * is dragged across the canvas. Prints the figures; asserts only that the flow opened.
 *
 *   npx vite build && PLAYWRIGHT_CHROMIUM_PATH=/usr/bin/chromium \
 *     npx playwright test --config e2e/bench.config.ts editor-300
 */
import { boxOf, center, EditorPage, expect, seedFlow, test, trpcCall } from '../fixtures.ts';
import { startFrameRecording, stopFrameRecording } from './frames.ts';

const STEPS = 300;
const COLUMNS = 20;
const DRAG_MOVES = 90;

/** A snake of steps, 20 to a row, each leading to the next (one webhook trigger first). */
function largeFlow() {
  const kinds = ['http.request', 'transform', 'message.post', 'delay'] as const;
  const nodes = Array.from({ length: STEPS }, (_, i) => {
    const row = Math.floor(i / COLUMNS);
    const column = row % 2 === 0 ? i % COLUMNS : COLUMNS - 1 - (i % COLUMNS);
    const position = { x: column * 320, y: row * 160 };
    const id = `s${i}`;
    if (i === 0) return { id, type: 'trigger.webhook', position, data: { label: 'Order event', eventId: '{{ trigger.body.id }}' } };
    const kind = kinds[i % kinds.length] as (typeof kinds)[number];
    const key = `{{ trigger.body.order.id }}:step-${i}`;
    const data = {
      'http.request': { label: `Call service ${i}`, key, request: { method: 'POST', url: 'http://127.0.0.1:9/x' } },
      transform: { label: `Pick values ${i}`, outputs: { total: '{{ trigger.body.order.total }}' } },
      'message.post': { label: `Tell the team ${i}`, key, url: 'http://127.0.0.1:9/chat', text: 'Order {{ trigger.body.order.id }}' },
      delay: { label: `Wait ${i}`, for: '1h' },
    }[kind];
    return { id, type: kind, position, data };
  });
  const edges = nodes.slice(1).map((node, i) => ({ id: `e${i}`, source: `s${i}`, target: node.id }));
  return { format: 'onceflow/v1', name: `Large flow (${STEPS} steps)`, sampleInput: { id: 'evt_1', order: { id: '4417', total: 120 } }, nodes, edges };
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length);
  return { frames: samples.length, mean: round(mean), p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1) ?? 0), over33ms: samples.filter((value) => value > 33.4).length };
}

const round = (value: number) => Math.round(value * 10) / 10;

test(`a ${STEPS}-step flow opens and drags smoothly`, async ({ page, request }) => {
  const flowId = await seedFlow(request, largeFlow());
  const editor = new EditorPage(page);

  await page.goto(`/flows/${flowId}`);
  await expect(page.locator('.react-flow__node')).toHaveCount(STEPS, { timeout: 60_000 });
  const rendered = await page.evaluate(() => performance.now());
  // Interactive: a click on a step selects it and its settings appear.
  const target = page.locator('.react-flow__node[data-id="s150"]');
  const clickAt = await page.evaluate(() => performance.now());
  await target.click();
  await expect(page.getByTestId('inspector').getByLabel('Label', { exact: true })).toHaveValue('Tell the team 150');
  const interactive = await page.evaluate(() => performance.now());

  // Frame times while one step follows the pointer, one pointer move per frame.
  await startFrameRecording(page);
  const start = await center(target);
  const before = await boxOf(target);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  const dragStart = await page.evaluate(() => performance.now());
  for (let i = 1; i <= DRAG_MOVES; i++) {
    await page.mouse.move(start.x + i * 3, start.y + i * 1.5);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  }
  await page.mouse.up();
  const dragEnd = await page.evaluate(() => performance.now());
  const frames = await stopFrameRecording(page);
  const after = await boxOf(target);
  expect(after.x).toBeGreaterThan(before.x + 100);
  await editor.waitSaved();

  const figures = {
    steps: STEPS,
    connections: STEPS - 1,
    allStepsRenderedMs: Math.round(rendered),
    interactiveMs: Math.round(interactive),
    firstClickToSettingsMs: Math.round(interactive - clickAt),
    dragMoves: DRAG_MOVES,
    dragDurationMs: Math.round(dragEnd - dragStart),
    frameTimesMs: stats(frames),
  };
  console.log(`\nEditor with ${STEPS} steps (times from navigation start):\n${JSON.stringify(figures, null, 2)}`);
  test.info().annotations.push({ type: 'figures', description: JSON.stringify(figures) });
  await trpcCall(request, 'flows.delete', { id: flowId });
});
