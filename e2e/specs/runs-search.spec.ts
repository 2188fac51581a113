/**
 * Finding a run by what it did from the runs page, at desktop and phone width: the search
 * box says in words what it can find, reads back what it looks for, and narrows the list
 * to the runs with that input value, that key, or that failed step. Nothing scrolls
 * sideways on a phone, and the page passes the accessibility audit with a search in it.
 *
 *   shop (webhook) ──▶ invoice (payments, key {{ order.id }}:invoice) ──▶ receipt (email)
 */
import { configureSandbox, resetSandbox, seedTemplate, sendWebhook, waitForRun } from '../fixtures/api.ts';
import { expect, test } from '../fixtures/index.ts';
import { fitsWidth, seriousFindings } from '../fixtures/a11y.ts';

const TEMPLATE = 'order-paid-invoice-receipt';

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 120, currency: 'EUR', customer: { email: 'ada@example.com', name: 'Ada' } } };
}

for (const size of [{ name: 'desktop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }]) {
  test.describe(`searching runs at ${size.name} width`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('finds runs by an input value, a key and the step they failed at', async ({ runHistory, page, request }) => {
      test.setTimeout(60_000);
      await resetSandbox(request);
      const stamp = `${size.name}-${Date.now()}`;
      const { hookId } = await seedTemplate(request, TEMPLATE, `Invoices (search ${size.name})`);
      const found = await sendWebhook(request, hookId!, order(`evt_found_${stamp}`, `91-${stamp}`));
      const other = await sendWebhook(request, hookId!, order(`evt_other_${stamp}`, `92-${stamp}`));
      await waitForRun(request, found.runId, ['succeeded']);
      await waitForRun(request, other.runId, ['succeeded']);
      await configureSandbox(request, 'payments', { failureRate: 1 });
      const failed = await sendWebhook(request, hookId!, order(`evt_failed_${stamp}`, `93-${stamp}`));
      await waitForRun(request, failed.runId, ['failed']);
      await configureSandbox(request, 'payments', { failureRate: 0 });

      await runHistory.open();
      const search = page.getByLabel('Search runs');
      // The box says what it can find, in words read out with it.
      await expect(search).toHaveAccessibleDescription(/key 4417:invoice.*order\.id = 4417/);
      const reading = page.getByTestId('runs.search-reading');

      await search.fill(`order.id = 91-${stamp}`);
      await expect(reading).toHaveText(`Runs whose input has order.id = 91-${stamp}.`);
      await expect(runHistory.rows()).toHaveCount(1);
      await expect(runHistory.row(found.runId)).toBeVisible();
      if (size.width < 500) await fitsWidth(page);
      expect(await seriousFindings(page)).toEqual([]);

      await search.fill(`key 92-${stamp}:invoice`);
      await expect(reading).toHaveText(`Runs that used the key 92-${stamp}:invoice.`);
      await expect(runHistory.rows()).toHaveCount(1);
      await expect(runHistory.row(other.runId)).toBeVisible();

      // The search and the flow filter hold together; the failed step by the name the run page shows.
      await search.fill('failed at Create invoice');
      await page.getByRole('combobox', { name: /^Flow/ }).selectOption({ label: `Invoices (search ${size.name})` });
      await expect(runHistory.rows()).toHaveCount(1);
      await expect(runHistory.row(failed.runId)).toBeVisible();
      if (size.width < 500) await fitsWidth(page);
    });
  });
}
