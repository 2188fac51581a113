/**
 * The README's screenshots of runs: a replay whose timeline shows the duplicates it
 * stopped, the preview before a rerun (and on a version whose key changed), and a failed
 * run at phone width. Made from the gallery template against the
 * built-in sandbox, so they show what a new user sees. Writes docs/screenshots/*.png.
 *
 *   npx vite build && PLAYWRIGHT_CHROMIUM_PATH=/usr/bin/chromium \
 *     npx playwright test --config e2e/bench.config.ts runs-screenshots
 */
import { expect, test } from '../fixtures/index.ts';
import { configureSandbox, resetSandbox, seedTemplate, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';
import { RunPage } from '../fixtures/pages/run-page.ts';

const OUT = 'docs/screenshots';

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 120, currency: 'EUR', customer: { email: 'ada@example.com', name: 'Ada' } } };
}

test('screenshots of a timeline with stopped duplicates and of a rerun preview', async ({ page, request }) => {
  await resetSandbox(request);
  const { flowId, hookId } = await seedTemplate(request, 'order-paid-invoice-receipt', 'Order paid → invoice → receipt email');
  const runPage = new RunPage(page);

  // The shop sends order 4417 three times; then someone replays it.
  const { runId } = await sendWebhook(request, hookId!, order('evt_4417', '4417'));
  await waitForRun(request, runId, ['succeeded']);
  await sendWebhook(request, hookId!, order('evt_4417', '4417'));
  await sendWebhook(request, hookId!, order('evt_4417', '4417'));
  await runPage.open(runId);
  await runPage.button('Replay').click();
  await expect(page).not.toHaveURL(new RegExp(runId));
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('step.duplicate')).toHaveCount(2);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${OUT}/timeline-duplicate.png` });

  // The mail server refuses order 4418's receipt; once it works again, the rerun preview.
  await configureSandbox(request, 'email', { failureRate: 1 });
  const failed = await sendWebhook(request, hookId!, order('evt_4418', '4418'));
  await waitForRun(request, failed.runId, ['failed']);
  await configureSandbox(request, 'email', { failureRate: 0 });
  await runPage.open(failed.runId);
  await runPage.button('Rerun').click();
  await expect(runPage.rerunDialog().getByTestId('rerun.preview').locator('[data-action]')).toHaveCount(2);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${OUT}/rerun-preview.png` });

  // The invoice's key template is changed in v2: the preview warns that it would act again.
  await page.keyboard.press('Escape');
  const flow = await trpcCall<{ draft: { nodes: Array<{ id: string; data: Record<string, unknown> }> } }>(request, 'flows.get', { id: flowId }, 'query');
  const invoice = flow.draft.nodes.find((node) => node.id === 'invoice')!;
  invoice.data.key = '{{ trigger.body.order.id }}:inv';
  await trpcCall(request, 'flows.saveDraft', { id: flowId, document: flow.draft });
  await trpcCall(request, 'flows.publish', { id: flowId });
  await runPage.open(failed.runId);
  await runPage.button('Rerun').click();
  await expect(runPage.rerunDialog().getByText(/its key changed/i).first()).toBeVisible();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${OUT}/rerun-changed-key.png` });
  await page.keyboard.press('Escape');

  // The same failed run on a phone, as an operator on call opens it.
  await page.setViewportSize({ width: 390, height: 844 });
  await runPage.open(failed.runId);
  await expect(runPage.entries().first()).toBeVisible();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${OUT}/run-phone.png` });
});
