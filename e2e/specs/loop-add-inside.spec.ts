/**
 * Steps added one after another with a loop's own "Add a step inside" stay in view: each goes
 * after the body's last step, so the loop grows to the right, past the canvas's edge by the
 * third or fourth; the canvas pans to each new step as it does for a step clicked from the
 * palette, keeping the loop's header with its button in view for the next. The list of steps opens over the loop's steps, not under them.
 *
 *   start (manual) ──► loop (for.each over lines)
 *                        └ request, transform, transform, … (added with "Add a step inside")
 */
import { seedFlow } from '../fixtures/api.ts';
import { boxOf } from '../fixtures/geometry.ts';
import { expect, test } from '../fixtures/index.ts';

test('each step added with "Add a step inside" is panned into view', async ({ editor, page, request }) => {
  test.setTimeout(60_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const flowId = await seedFlow(request, {
    format: 'onceflow/v1',
    name: `Grow a loop ${Date.now()}`,
    sampleInput: { lines: [{ sku: 'A-1' }] },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Order lines' } },
      { id: 'loop', type: 'for.each', position: { x: 320, y: 0 }, data: { label: 'Each line', items: '{{ trigger.body.lines }}' } },
    ],
    edges: [{ id: 'start-loop', source: 'start', target: 'loop' }],
  });
  await editor.open(flowId);
  const loop = editor.node('for.each');
  const transforms = editor.node('transform');
  const addInside = loop.getByRole('button', { name: 'Add a step inside Each line' });
  const menu = page.getByRole('list', { name: 'Steps you can add inside Each line' });
  const underButton = async () => {
    const [under, list] = [await boxOf(addInside), await boxOf(menu)];
    return Math.abs(list.y - (under.y + under.height + 4)) < 1.5 && Math.abs(list.x + list.width - (under.x + under.width)) < 1.5;
  };

  // From the keyboard: the list opens with its first choice focused; Escape closes it and
  // gives the focus back to the button.
  await addInside.focus();
  await page.keyboard.press('Enter');
  await expect(menu.getByRole('button').first()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(addInside).toBeFocused();
  // A choice made with Enter adds its step, and the focus is back on the button, ready for
  // the next.
  await page.keyboard.press('Enter');
  await expect(menu.getByRole('button', { name: 'HTTP request' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(editor.node('http.request')).toHaveCount(1);
  await expect(menu).toHaveCount(0);
  await expect(addInside).toBeFocused();
  // It goes along with its button when the canvas moves under it.
  await addInside.click();
  await expect(menu).toBeVisible();
  const before = await boxOf(addInside);
  const canvasBox = await boxOf(editor.canvas());
  await page.mouse.move(canvasBox.x + canvasBox.width / 2, canvasBox.y + 20);
  await page.mouse.wheel(0, 120);
  await expect.poll(async () => (await boxOf(addInside)).x).not.toBe(before.x);
  await expect.poll(underButton).toBe(true);
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await page.getByRole('button', { name: 'Fit view' }).click();

  await addInside.click();
  for (let added = 1; added <= 4; added++) {
    // The list opens over the steps already inside (a click on a covered choice would fail).
    await menu.getByRole('button', { name: 'Transform' }).click();
    await expect(transforms).toHaveCount(added);
    // Opened again at once from the keyboard (the focus is back on the button), while the pan
    // to the new step may still be on its way: the list stays open and goes along.
    await page.keyboard.press('Enter');
    await expect(menu).toBeVisible();
    // The newest step is the rightmost; it ends up whole inside the canvas, and so does the
    // button that adds the next one, with the list under it.
    await expect
      .poll(async () => {
        const canvas = await boxOf(editor.canvas());
        const within = (box: { x: number; y: number; width: number; height: number }) =>
          box.x >= canvas.x && box.x + box.width <= canvas.x + canvas.width && box.y >= canvas.y && box.y + box.height <= canvas.y + canvas.height;
        const boxes = await Promise.all((await transforms.all()).map((step) => boxOf(step)));
        const newest = boxes.reduce((right, box) => (box.x > right.x ? box : right));
        return within(newest) && within(await boxOf(addInside)) && (await underButton());
      })
      .toBe(true);
  }
});
