/**
 * The README's screenshot of a proof report: Prove it on the gallery's order template,
 * from the editor, once every check has finished. Writes docs/screenshots/proof-report.png.
 *
 *   npx vite build && PLAYWRIGHT_CHROMIUM_PATH=/usr/bin/chromium \
 *     npx playwright test --config e2e/bench.config.ts proof-report
 */
import { expect, test } from '../fixtures/index.ts';
import { seedTemplate } from '../fixtures/api.ts';

const OUT = 'docs/screenshots';

test('screenshot of a proof report', async ({ page, request, editor }) => {
  const { flowId } = await seedTemplate(request, 'order-paid-invoice-receipt', 'Order paid → invoice → receipt email');
  await page.setViewportSize({ width: 1280, height: 1100 });
  await editor.open(flowId);
  await page.getByRole('button', { name: 'Prove it' }).click();
  await expect(page.getByTestId('proof.headline')).not.toHaveText(/^Checking|^Starting/, { timeout: 60_000 });
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${OUT}/proof-report.png`, fullPage: true });
});
