/**
 * Cancel on the run page: a run whose "Create invoice" step is slow is cancelled while the
 * step acts, after a confirmation dialog. The step finishes and is recorded, the receipt is
 * never sent, and the timeline says who cancelled and what had already happened. Also at
 * phone width (390 px), where nothing scrolls sideways.
 *
 *   shop (webhook) ──▶ invoice (payments, slow) ──▶ receipt (email)
 */
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import type { APIRequestContext, Page } from '@playwright/test';
import type { RunPage } from '../fixtures/pages/run-page.ts';
import { configureSandbox, resetSandbox, sandboxEffects, seedTemplate, sendWebhook, waitForRun } from '../fixtures/api.ts';

const TEMPLATE = 'order-paid-invoice-receipt';

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 120, currency: 'EUR', customer: { email: 'ada@example.com', name: 'Ada' } } };
}

// The invoice takes 50 s to answer, and the test waits for that answer to be recorded.
test.describe.configure({ timeout: 120_000 });

test.beforeEach(async ({ request }) => {
  await resetSandbox(request);
});

async function cancelWhileActing(request: APIRequestContext, runPage: RunPage, page: Page, name: string, eventId: string) {
  // Slow enough that the invoice is still being created while the person reads the dialog and
  // the audit below reads the page: on a busy 2-core machine (the browser tests beside the
  // server and the other worker) those took 16 s from the webhook once and 25 s another time,
  // the audit alone 15 s, and with 25 s here the run had ended before Cancel was pressed.
  // The step waits longer than its default 30 s for the answer.
  const { hookId } = await seedTemplate(request, TEMPLATE, name, (draft) => ({
    ...draft, nodes: draft.nodes.map((node) => (node.id === 'invoice' ? { ...node, data: { ...node.data, timeoutMs: 75_000 } } : node)),
  }));
  await configureSandbox(request, 'payments', { latencyMs: 50_000 });
  const { runId } = await sendWebhook(request, hookId!, order(eventId, eventId.slice(-4)));
  await waitForRun(request, runId, ['running']);

  await runPage.open(runId);
  await runPage.waitForStatus('running');
  await runPage.button('Cancel run').click();
  const dialog = page.getByTestId('cancel.dialog');
  await expect(dialog.getByRole('heading', { name: /^Cancel run #\d+\?$/ })).toBeVisible();
  await expect(dialog).toContainText('A step that is acting right now finishes and its outcome is recorded');
  // The dialog's panel fits the screen, whatever its width.
  const panel = await dialog.locator('.dialog__panel').boundingBox();
  expect(panel!.x).toBeGreaterThanOrEqual(0);
  expect(panel!.x + panel!.width).toBeLessThanOrEqual(page.viewportSize()!.width);
  // The open dialog has no serious or critical accessibility findings, and works by keyboard.
  expect(await seriousFindings(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Cancel run', exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await runPage.waitForStatus('cancelled');

  // First what the cancel found, then, once the receiver answered, how the step ended.
  await expect(runPage.entries('while “Create invoice” was acting; it finishes and is recorded')).toHaveCount(1);
  await expect(runPage.entries('while “Create invoice” was acting; it finished and was recorded. 1 step did not run.')).toHaveCount(1, { timeout: 60_000 });
  await expect(runPage.node('invoice')).toHaveAttribute('data-status', 'succeeded');
  expect(await sandboxEffects(request, 'payments')).toBe(1);
  expect(await sandboxEffects(request, 'email')).toBe(0);
  await expect(runPage.button('Cancel run')).toHaveCount(0);
  return runId;
}

test('cancelling a run while a slow step acts: it finishes and is recorded, nothing after it runs', async ({ runPage, page, request }) => {
  await cancelWhileActing(request, runPage, page, 'Invoices (cancel)', 'evt_cancel_7001');
});

test.describe('at phone width', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('the Cancel dialog fits a phone and works the same', async ({ runPage, page, request }) => {
    await cancelWhileActing(request, runPage, page, 'Invoices (cancel, phone)', 'evt_cancel_7002');
    const widths = await page.evaluate(() => ({ scroll: document.scrollingElement!.scrollWidth, client: document.scrollingElement!.clientWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  });
});
