/**
 * Replay with changes from the Inbox: a delivery's body opens in the JSON box, a mistake is
 * pointed at by line and column, editing the order id makes the preview name the new key as
 * not yet done, and the replay — sent as that delivery's — acts once. At phone width the
 * dialog fits the screen and passes the accessibility audit; at every table width a
 * delivery's two replay buttons show whole.
 */
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { resetSandbox, sandboxEffects, seedTemplate, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';

test.use({ viewport: { width: 1400, height: 900 } });

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 80, currency: 'EUR', customer: { email: 'bo@example.com', name: 'Bo' } } };
}

test.beforeEach(async ({ request }) => {
  await resetSandbox(request);
});

test('the inbox replays a delivery with an edited order id: the preview names the new key, the run acts', async ({ inbox, runPage, page, request }) => {
  const { flowId, hookId } = await seedTemplate(request, 'order-paid-invoice-receipt', 'Inbox replay with changes');
  const { runId } = await sendWebhook(request, hookId!, order('evt_edit_1', '7701'));
  await waitForRun(request, runId, ['succeeded']);
  expect(await sandboxEffects(request, 'payments')).toBe(1);

  await inbox.open(flowId);
  await inbox.rows().first().getByRole('button', { name: 'Replay with changes…' }).click();
  const dialog = page.getByTestId('replay-changes.dialog');
  await expect(dialog.getByRole('heading', { name: 'Replay event evt_edit_1 with changes' })).toBeVisible();
  const box = dialog.getByRole('textbox', { name: 'Input (JSON)' });
  await expect(box).toHaveValue(/"7701"/);
  const invoice = dialog.getByTestId('rerun.preview').locator('li', { hasText: 'Create invoice' });
  await expect(invoice).toHaveAttribute('data-action', 'deduplicate');
  await expect(invoice).toContainText('Key 7701:invoice was already done by run #');

  await box.fill('{ "order": { "id": "7702" ');
  await expect(dialog.getByTestId('replay-changes.mistake')).toContainText('Line 1, column');
  await expect(dialog.getByRole('button', { name: 'Replay with this input' })).toBeDisabled();

  await box.fill(JSON.stringify(order('evt_edit_1', '7702'), null, 2));
  await expect(invoice).toHaveAttribute('data-action', 'act');
  await expect(invoice).toContainText('7702:invoice');

  // At phone width the dialog fits without sideways scrolling and passes the audit.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const dialogBox = await dialog.boundingBox();
  expect(dialogBox!.x + dialogBox!.width).toBeLessThanOrEqual(390);
  expect(await seriousFindings(page, { within: '[data-testid="replay-changes.dialog"]' })).toEqual([]);

  await dialog.getByRole('button', { name: 'Replay with this input' }).click();
  await expect(page).not.toHaveURL(/inbox/);
  await expect(page).not.toHaveURL(new RegExp(runId));
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('step.duplicate')).toHaveCount(0);
  expect(await sandboxEffects(request, 'payments')).toBe(2);

  // The replay is the delivery's: it keeps the envelope and carries the edited body.
  const replayId = new URL(page.url()).pathname.split('/').pop()!;
  const replayed = await trpcCall<{ run: { input: { body: { order: { id: string } }; headers?: unknown } } }>(request, 'runs.get', { runId: replayId }, 'query');
  expect(replayed.run.input.body.order.id).toBe('7702');
});

test('at any table width both replay buttons of a delivery show whole, each on one line', async ({ inbox, page, request }) => {
  const { flowId, hookId } = await seedTemplate(request, 'order-paid-invoice-receipt', 'Inbox buttons at every width');
  const { runId } = await sendWebhook(request, hookId!, order('evt_width_1', '7801'));
  await waitForRun(request, runId, ['succeeded']);
  await inbox.open(flowId);
  const row = inbox.rows().first();
  // Above 760 px the inbox is a table (below it, cards).
  for (const width of [780, 1024, 1280, 1600]) {
    await page.setViewportSize({ width, height: 900 });
    const replay = await row.getByRole('button', { name: 'Replay', exact: true }).boundingBox();
    for (const name of ['Replay', 'Replay with changes…']) {
      const button = row.getByRole('button', { name, exact: true });
      const box = (await button.boundingBox())!;
      expect(box.height, `${name} at ${width} px`).toBeLessThan(replay!.height * 1.4);
      // Not cut off by its cell: the point at its right end is the button itself.
      const atRightEnd = await button.evaluate((element, point) => {
        const hit = document.elementFromPoint(point.x, point.y);
        return hit === element || element.contains(hit);
      }, { x: box.x + box.width - 3, y: box.y + box.height / 2 });
      expect(atRightEnd, `${name} at ${width} px`).toBe(true);
    }
  }
});
