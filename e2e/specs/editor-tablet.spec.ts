/**
 * The editor at tablet width (761–1,100 px): the palette is a rail of named icons and the
 * details panel narrows, so the canvas is not squeezed between them; every details tab is
 * in sight without scrolling the tab row sideways; the accessibility audit passes there.
 */
import type { Page } from '@playwright/test';
import { seedFlow } from '../fixtures/api.ts';
import { boxOf } from '../fixtures/geometry.ts';
import { orderFlowDocument } from '../fixtures/flows.ts';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { clickStep } from '../fixtures/canvas.ts';

const palette = (page: Page) => page.getByRole('navigation', { name: 'Steps you can add' });
const details = (page: Page) => page.getByRole('complementary', { name: 'Details' });

test('at tablet width the canvas keeps its room, the palette names every step and adds one when clicked', async ({ editor, page }) => {
  const flowId = await seedFlow(page.request, orderFlowDocument('Tablet layout'));
  await editor.open(flowId);
  for (const width of [800, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    // At 800 px the full palette and panel left the canvas about 170 px.
    expect((await boxOf(editor.canvas())).width, `the canvas at ${width} px`).toBeGreaterThanOrEqual(width * 0.4);

    const rail = await boxOf(palette(page));
    const items = palette(page).getByRole('button');
    expect(await items.count()).toBeGreaterThan(8);
    for (const item of await items.all()) {
      const name = (await item.getAttribute('aria-label'))!;
      // Each step's name is on screen, inside the rail, not only in a tooltip.
      await expect(item.getByText(name, { exact: true }), `${name} at ${width} px`).toBeVisible();
      const box = await boxOf(item.getByText(name, { exact: true }));
      expect(box.x, `${name} at ${width} px`).toBeGreaterThanOrEqual(rail.x);
      expect(box.x + box.width, `${name} at ${width} px`).toBeLessThanOrEqual(rail.x + rail.width);
      // No word is broken: a name takes at most a line per word.
      const lines = await item.getByText(name, { exact: true }).evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      });
      expect(lines, `${name} at ${width} px`).toBeLessThanOrEqual(name.split(' ').length);
    }

    const panel = await boxOf(details(page));
    for (const tab of await details(page).getByRole('tab').all()) {
      const box = await boxOf(tab);
      const name = await tab.textContent();
      expect(box.x, `the ${name} tab at ${width} px`).toBeGreaterThanOrEqual(panel.x);
      expect(box.x + box.width, `the ${name} tab at ${width} px`).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
    }
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
    expect(widths.scroll, `at ${width} px`).toBeLessThanOrEqual(widths.view);

    // The rail and the narrower panel pass the same audit as every other page, a step open.
    await clickStep(editor.node('http.request'));
    await expect(page.getByTestId('inspector')).toBeVisible();
    expect(await seriousFindings(page), `at ${width} px`).toEqual([]);
  }

  // The rail's items still add steps.
  await expect(editor.node('delay')).toHaveCount(0);
  await editor.paletteItem('Delay').click();
  await expect(editor.node('delay')).toHaveCount(1);
  await editor.waitSaved();
});
