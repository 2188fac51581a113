/**
 * The README's screenshots of the editor, made from the gallery template so they show
 * what a new user sees, and the Secrets page. Writes docs/screenshots/*.png.
 *
 *   npx vite build && PLAYWRIGHT_CHROMIUM_PATH=/usr/bin/chromium \
 *     npx playwright test --config e2e/bench.config.ts editor-screenshots
 */
import { expect, test } from '../fixtures/index.ts';
import { trpcCall } from '../fixtures/api.ts';
import { EditorPage } from '../fixtures/pages/editor-page.ts';
import { FlowListPage } from '../fixtures/pages/flow-list-page.ts';

const OUT = 'docs/screenshots';

test('screenshots of the flow list, the editor and the key field', async ({ page, request }) => {
  const list = new FlowListPage(page);
  await trpcCall(request, 'gallery.use', { templateId: 'payment-events-any-order' });
  await trpcCall(request, 'gallery.use', { templateId: 'lead-outreach-sequence' });
  await list.open();
  await expect(page.getByTestId('gallery.template')).toHaveCount(3);
  await page.screenshot({ path: `${OUT}/flow-list.png` });

  await list.useTemplate('Order paid → invoice → receipt email');
  await expect(page).toHaveURL(/\/flows\//);
  const editor = new EditorPage(page);
  await editor.node('http.request').click();
  await expect(editor.keyPreview()).toContainText('4417:invoice');
  await editor.waitSaved();
  await editor.keyField().scrollIntoViewIfNeeded();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${OUT}/editor-template.png` });

  // The key field with the field picker open, in a panel tall enough to show all of it.
  await page.setViewportSize({ width: 1600, height: 1500 });
  await page.getByRole('button', { name: 'Insert a field into Idempotency key' }).click();
  const section = page.getByTestId('inspector').locator('section').filter({ hasText: 'Doing it once' });
  await section.evaluate((element) => element.scrollIntoView({ block: 'start' }));
  const panel = await page.locator('.side-panel').boundingBox();
  const top = await section.boundingBox();
  if (!panel || !top) throw new Error('The side panel is not visible.');
  await page.screenshot({ path: `${OUT}/key-field.png`, clip: { x: panel.x, y: top.y - 12, width: panel.width, height: Math.min(940, panel.y + panel.height - top.y + 12) } });

  // The Secrets page: names, when each changed and which flows use it; never values.
  await trpcCall(request, 'secretAdmin.save', { name: 'SMTP_PASSWORD', value: 'a long stand-in password' });
  await trpcCall(request, 'secretAdmin.save', { name: 'CRM_TOKEN', value: 'another long stand-in value' });
  await page.setViewportSize({ width: 1600, height: 900 });
  await page.goto('/secrets');
  await expect(page.getByText('SMTP_PASSWORD').first()).toBeVisible();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${OUT}/secrets.png` });
});
