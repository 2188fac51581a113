/**
 * Honest key expiry in the browser: a flow whose invoice key is kept two seconds. Once it
 * has expired, the replay preview says the key expired and the step will act again, and
 * the new run's timeline says it at that step. At phone width the dialog fits and
 * passes the accessibility audit.
 */
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { resetSandbox, seedTemplate, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';

type Draft = { nodes: Array<{ id: string; type: string; data: Record<string, unknown> }>; [field: string]: unknown };

test.beforeEach(async ({ request }) => {
  await resetSandbox(request);
});

// The browser in a zone whose day is not UTC's at this hour (UTC+14 from 10:00 UTC, UTC−12
// before 12:00 UTC): the preview must word its days in the reader's zone.
test.use({ timezoneId: new Date().getUTCHours() >= 11 ? 'Pacific/Kiritimati' : 'Etc/GMT+12' });

test('a replay after the key expired warns in the preview and says so in the timeline', async ({ runPage, page, request }) => {
  const { flowId, hookId } = await seedTemplate(request, 'order-paid-invoice-receipt', 'Short-lived keys');
  // Every side-effect step keeps its key for two seconds only.
  const { draft } = await trpcCall<{ draft: Draft }>(request, 'flows.get', { id: flowId }, 'query');
  const nodes = draft.nodes.map((node) => (node.data.key ? { ...node, data: { ...node.data, keyTtl: '2s' } } : node));
  await trpcCall(request, 'flows.saveDraft', { id: flowId, document: { ...draft, nodes } });
  await trpcCall(request, 'flows.publish', { id: flowId });

  const order = { id: 'evt_expiry_1', type: 'order.paid', order: { id: '9417', total: 80, currency: 'EUR', customer: { email: 'cy@example.com', name: 'Cy' } } };
  const { runId } = await sendWebhook(request, hookId!, order);
  await waitForRun(request, runId, ['succeeded']);
  await page.waitForTimeout(2_200);

  await page.setViewportSize({ width: 390, height: 844 });
  await runPage.open(runId);
  await page.getByRole('button', { name: 'Replay with changes…' }).click();
  const dialog = page.getByTestId('replay-changes.dialog');
  const invoice = dialog.getByTestId('rerun.preview').locator('li', { hasText: 'Create invoice' });
  await expect(invoice).toHaveAttribute('data-action', 'act');
  await expect(invoice).toContainText('Acts again — its key expired');
  await expect(invoice).toContainText(/Key 9417:invoice expired on [\w ,]+; this will act again \(it was done by run #\d+ on [\w ,]+\)\./);
  // Its day is the reader's, not UTC's.
  const preview = await trpcCall<{ steps: Array<{ nodeId: string; expired?: { expiredAt: number } }> }>(request, 'runs.replayPreview', { runId }, 'query');
  const expiredAt = preview.steps.find((step) => step.expired)!.expired!.expiredAt;
  const [readersDay, utcDay] = await page.evaluate((at) => [
    new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' }).format(at),
    new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(at),
  ], expiredAt);
  expect(readersDay).not.toBe(utcDay);
  await expect(invoice).toContainText(`expired on ${readersDay};`);
  await expect(dialog.getByTestId('preview.expired')).toContainText(/keys? expired and will act again/);
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousFindings(page, { within: '[data-testid="replay-changes.dialog"]' })).toEqual([]);

  await dialog.getByRole('button', { name: 'Replay with this input' }).click();
  await expect(page).not.toHaveURL(new RegExp(`${runId}$`));
  await runPage.waitForStatus('succeeded');
  const note = runPage.entriesOfType('step.key_expired').first();
  await expect(note).toContainText('Key expired: acts again');
  // The sweeper runs once a minute, so it may or may not have reached the key by now. Not
  // swept, the claim was taken over in place and that it had expired is all the run knows;
  // swept, its record adds when, and by which run.
  await expect(note).toContainText(
    /9417:invoice\s*(had expired; this will act again\.|expired on [\w ,]+; this will act again\. It was done by run #\d+ on [\w ,]+; keys are kept only for their time to live\.)/,
  );
  await expect(runPage.entriesOfType('step.duplicate')).toHaveCount(0);
});
