/**
 * A For each built in the editor, as a person builds one: the loop clicked in from the
 * palette after the trigger, its list chosen from the sample, a request added inside with
 * "Add a step inside", `item.sku` picked with the field picker (the key lint warns while
 * the key is the same for every item), a transform dropped into the loop's area, a test
 * run, and the run's items each with their own steps. Then deleting the loop (it asks),
 * undo, a delay dragged in from outside, and the same flow at phone width.
 *
 *   start (manual, sample: 3 lines with a sku) ──► loop (for.each over lines)
 *                                                   └ request (POST …/stock/{{ item.sku }})
 *                                                   └ transform (dropped in)
 */
import { seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';
import { boxOf } from '../fixtures/geometry.ts';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { clickStep } from '../fixtures/canvas.ts';

const SAMPLE = { order: 'o-77', lines: [{ sku: 'A-1', qty: 2 }, { sku: 'B-2', qty: 1 }, { sku: 'C-3', qty: 5 }] };

interface Draft {
  draft: { nodes: Array<{ id: string; type: string; parentId?: string; position: { x: number; y: number }; data: Record<string, unknown> }>; edges: Array<{ source: string; target: string }> };
}

test('a loop built from the palette runs its steps once per item', async ({ editor, runPage, page, request }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const flowId = await seedFlow(request, {
    format: 'onceflow/v1',
    name: `Stock check ${Date.now()}`,
    sampleInput: SAMPLE,
    nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Order lines' } }],
    edges: [],
  });
  await editor.open(flowId);

  // The trigger is selected: For each goes after it, connected.
  await clickStep(editor.node('trigger.manual'));
  await editor.paletteItem('For each').click();
  const loop = editor.node('for.each');
  await expect(loop).toHaveCount(1);
  await expect(editor.edges()).toHaveCount(1);
  await expect(loop).toContainText('Choose a list to go through');
  // Placed after the trigger, past the canvas's right edge, the loop is panned whole into view
  // (its "Add a step inside" is at its right end), not just a step's width of it.
  await expect.poll(async () => {
    const [canvas, box] = [await boxOf(editor.canvas()), await boxOf(loop)];
    return box.x >= canvas.x && box.x + box.width <= canvas.x + canvas.width;
  }).toBe(true);

  // The sample's lists are offered for Items.
  await page.getByTestId('inspector').getByRole('button', { name: 'Go through lines (3 items in the sample)' }).click();
  await expect(page.getByTestId('inspector.items')).toHaveValue('{{ trigger.body.lines }}');
  await expect(loop).toContainText('For each item of trigger.body.lines');
  await editor.field('If an item fails').selectOption('continue');
  await editor.field('Items at once').fill('2');

  // "Add a step inside" is a button in the loop, reached from the keyboard like any other.
  const addInside = loop.getByRole('button', { name: 'Add a step inside For each item' });
  await addInside.focus();
  await page.keyboard.press('Enter');
  await page.getByRole('list', { name: 'Steps you can add inside For each item' }).getByRole('button', { name: 'HTTP request' }).click();
  const http = editor.node('http.request');
  await expect(http).toHaveCount(1);
  // Drawn inside the loop's box, below its header.
  const [loopBox, httpBox] = [await boxOf(loop), await boxOf(http)];
  expect(httpBox.x).toBeGreaterThan(loopBox.x);
  expect(httpBox.y).toBeGreaterThan(loopBox.y + 90);
  expect(httpBox.y + httpBox.height).toBeLessThan(loopBox.y + loopBox.height);

  await editor.field('Method').selectOption('POST');
  await editor.field('URL').fill('http://127.0.0.1:9/stock/');
  // The field picker offers the item's fields; the pick goes where the cursor is.
  await page.getByRole('button', { name: 'Insert a field into URL' }).click();
  const picker = page.getByRole('group', { name: 'Fields you can insert into URL' });
  await expect(picker.getByRole('button', { name: 'loop.index', exact: true })).toBeVisible();
  await picker.getByRole('button', { name: 'item.sku', exact: true }).click();
  await expect(editor.field('URL')).toHaveValue('http://127.0.0.1:9/stock/{{ item.sku }}');

  // Keys are suggested from the item; a key that is the same for every item is flagged.
  await expect(page.getByRole('button', { name: 'Use the key {{ item.sku }}:http-request' })).toBeVisible();
  await editor.keyField().fill('{{ trigger.body.order }}:stock');
  await expect(editor.keyLint()).toContainText('two items would share one key');
  await editor.keyField().fill('{{ trigger.body.order }}:stock:');
  await page.getByRole('button', { name: 'Insert a field into Idempotency key' }).click();
  await page.getByRole('group', { name: 'Fields you can insert into Idempotency key' }).getByRole('button', { name: 'item.sku', exact: true }).click();
  await expect(editor.keyPreview()).toContainText('o-77:stock:A-1');
  await expect(editor.keyLint()).toHaveCount(0);

  // A step dropped on the loop's area goes inside it too (once the request's problems are
  // gone, so the loop has its final size, and with the whole loop in view).
  await expect(page.getByTestId('node.problem')).toHaveCount(0);
  // Fit view fits the sizes the canvas has measured; on a busy machine the loop may still be
  // growing to its final size when it is clicked, so it is clicked again until the loop fits.
  await expect(async () => {
    await page.getByRole('button', { name: 'Fit view' }).click();
    expect((await boxOf(loop)).x + (await boxOf(loop)).width).toBeLessThan((await boxOf(editor.canvas())).x + (await boxOf(editor.canvas())).width);
  }).toPass({ timeout: 10_000 });
  const area = await boxOf(loop);
  const canvas = await boxOf(editor.canvas());
  // Right of the request, inside the loop's body.
  await editor.dragKindToCanvas('Transform', { x: area.x - canvas.x + area.width - 90, y: area.y - canvas.y + area.height * 0.6 });
  await expect(editor.node('transform')).toHaveCount(1);
  await page.getByTestId('inspector').getByLabel('Output value 1').fill('{{ item.qty }}');

  await editor.waitSaved();
  const { draft } = await trpcCall<Draft>(request, 'flows.get', { id: flowId }, 'query');
  const byType = (type: string) => draft.nodes.find((node) => node.type === type)!;
  const loopId = byType('for.each').id;
  expect(byType('for.each').data).toMatchObject({ items: '{{ trigger.body.lines }}', onItemError: 'continue', concurrency: 2 });
  expect(byType('http.request')).toMatchObject({ parentId: loopId, data: { key: '{{ trigger.body.order }}:stock:{{ item.sku }}' } });
  expect(byType('transform')).toMatchObject({ parentId: loopId, data: { outputs: { value: '{{ item.qty }}' } } });
  // Body positions are relative to the loop.
  expect(byType('http.request').position.y).toBeLessThan(400);
  await expect(page.getByTestId('node.problem')).toHaveCount(0);

  // A test run: each item's request reaches the stand-in with its own key.
  await page.getByRole('button', { name: 'Test run' }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  const runId = new URL(page.url()).pathname.split('/').at(-1)!;
  expect(await waitForRun(request, runId, ['succeeded', 'failed', 'needs_review'])).toBe('succeeded');
  const effects = await trpcCall<Array<{ request: { url?: string; key?: string } }>>(request, 'tests.standInEffects', { runId }, 'query');
  expect(effects.map((effect) => effect.request.url).sort()).toEqual(['A-1', 'B-2', 'C-3'].map((sku) => `http://127.0.0.1:9/stock/${sku}`));

  // The run canvas shows the loop's counts; its drawer lists each item with its steps.
  await expect(runPage.node(loopId).getByTestId('run.loop-counts')).toHaveText('3 done · 0 duplicates stopped · 0 failed');
  await clickStep(runPage.node(loopId));
  const drawer = runPage.drawer();
  await expect(drawer.getByTestId('loop.summary')).toHaveText('3 items — 3 done, 0 duplicates stopped, 0 failed');
  const items = drawer.getByTestId('loop.items').getByRole('listitem').filter({ hasText: /^Item \d+:/ });
  await expect(items).toHaveCount(3);
  await expect(items.nth(1)).toContainText('Item 2: Succeeded');
  await expect(items.nth(1)).toContainText('HTTP request: Succeeded');
  await expect(items.nth(1)).toContainText('Transform: Succeeded');
  await expect(items.nth(1)).toContainText('o-77:stock:B-2');

  // Deleting the loop asks first, naming the steps that go with it; declining keeps everything.
  await editor.open(flowId);
  await clickStep(editor.node('for.each'));
  page.once('dialog', (dialog) => {
    expect(dialog.message()).toBe('Delete “For each item” and the 2 steps inside it? Undo brings them back.');
    void dialog.dismiss();
  });
  await page.getByTestId('inspector').getByRole('button', { name: 'Delete step' }).click();
  await expect(editor.node('http.request')).toHaveCount(1);
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByTestId('inspector').getByRole('button', { name: 'Delete step' }).click();
  await expect(editor.node('for.each')).toHaveCount(0);
  await expect(editor.node('http.request')).toHaveCount(0);
  await page.keyboard.press('Control+z');
  await expect(editor.node('http.request')).toHaveCount(1);
  await expect(editor.node('for.each')).toHaveCount(1);

  // A step added outside and then dragged onto the loop joins it.
  await page.getByRole('button', { name: 'Fit view' }).click();
  await editor.canvas().click({ position: { x: 8, y: 8 } });
  await editor.paletteItem('Delay').click();
  const delay = editor.node('delay');
  await expect(delay).toHaveCount(1);
  const target = await boxOf(editor.node('for.each'));
  const start = await boxOf(delay);
  expect(start.y).toBeGreaterThan(target.y + target.height - 1);
  await editor.drag({ x: start.x + 20, y: start.y + 20 }, { x: target.x + target.width - 140, y: target.y + 130 });
  await editor.waitSaved();
  await expect.poll(async () => (await trpcCall<Draft>(request, 'flows.get', { id: flowId }, 'query')).draft.nodes.find((node) => node.type === 'delay')?.parentId).toBe(loopId);

  // At phone width the loop and its steps are there to read; nothing spills sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await editor.open(flowId);
  await expect(page.getByTestId('editor.read-only')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Steps you can add' })).toHaveCount(0);
  await expect(editor.node('for.each')).toBeVisible();
  await expect(editor.node('for.each').getByRole('button', { name: /Add a step inside/ })).toHaveCount(0);
  // Too wide to read fitted to a phone, the flow opens at its trigger with the loop beyond the
  // right edge; a person fits the view to reach it (a click on a step out of view would make
  // the browser scroll the canvas itself, which React Flow does not follow).
  await page.getByRole('button', { name: 'Fit view' }).click();
  await clickStep(editor.node('for.each'));
  await expect(page.getByTestId('inspector.items')).toHaveValue('{{ trigger.body.lines }}');
  const widths = await page.evaluate(() => ({ scroll: document.scrollingElement!.scrollWidth, client: document.scrollingElement!.clientWidth }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  expect(await seriousFindings(page)).toEqual([]);
});
