/**
 * The run view against the app's own sandbox receivers, with the gallery's
 * "Order paid → invoice → receipt email" flow:
 *
 *   shop (webhook) ──▶ invoice (payments, honours Idempotency-Key) ──▶ receipt (email, honours nothing)
 */
import { expect, test } from '../fixtures/index.ts';
import { configureSandbox, resetSandbox, sandboxEffects, seedTemplate, sendWebhook, trpcCall } from '../fixtures/api.ts';
import { clickStep } from '../fixtures/canvas.ts';

test.use({ viewport: { width: 1600, height: 900 } });

const TEMPLATE = 'order-paid-invoice-receipt';

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 120, currency: 'EUR', customer: { email: 'ada@example.com', name: 'Ada' } } };
}

test.beforeEach(async ({ request }) => {
  await resetSandbox(request);
});

test('a webhook run succeeds; its replay stops two duplicates and nothing is sent twice', async ({ runPage, runHistory, page, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (replay)');
  const { runId } = await sendWebhook(request, hookId!, order('evt_replay', '7101'));

  await runPage.open(runId);
  await runPage.waitForStatus('succeeded');
  await expect(runPage.status()).toHaveText('succeeded');
  await expect(runPage.entriesOfType('step.succeeded')).toHaveCount(2);
  await expect(runPage.entriesOfType('step.succeeded').first()).toContainText('Done');
  await expect(runPage.entries('Delivery received')).toContainText('evt_replay');
  await expect(runPage.node('invoice')).toHaveAttribute('data-status', 'succeeded');
  await expect(runPage.node('receipt')).toHaveAttribute('data-status', 'succeeded');

  await runPage.button('Replay').click();
  await expect(page).not.toHaveURL(new RegExp(runId));
  await runPage.waitForStatus('succeeded');
  const duplicates = runPage.entriesOfType('step.duplicate');
  await expect(duplicates).toHaveCount(2);
  await expect(duplicates).toContainText(['Duplicate stopped', 'Duplicate stopped']);
  await expect(duplicates.filter({ hasText: 'Create invoice' })).toContainText('Key 7101:invoice was already done by run #');
  await expect(duplicates.filter({ hasText: 'Create invoice' })).toContainText('no second invoice was created');
  await expect(duplicates.filter({ hasText: 'Email the receipt' })).toContainText('no second email was sent');
  await expect(runPage.node('invoice')).toHaveAttribute('data-status', 'duplicate');
  await expect(runPage.node('receipt')).toHaveAttribute('data-status', 'duplicate');

  expect(await sandboxEffects(request, 'payments')).toBe(1);
  expect(await sandboxEffects(request, 'email')).toBe(1);

  // The step drawer shows the key and who did the work.
  await clickStep(runPage.node('invoice'));
  await expect(runPage.drawer()).toContainText('7101:invoice');
  await expect(runPage.drawer().getByTestId('step-drawer.claim')).toHaveText('Done');
  await expect(runPage.drawer()).toContainText(/Done by\s*run #\d+/);

  // The history shows the replay, what it stopped, and which run it repeats.
  const replayId = new URL(page.url()).pathname.split('/').pop()!;
  await runHistory.open();
  await expect(runHistory.row(replayId)).toContainText('Replay of run #');
  await expect(runHistory.row(replayId).locator('td').nth(6)).toHaveText('2');
});

test('a failed invoice is fixed and rerun: the preview says what will act, and one invoice is made', async ({ runPage, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (failed invoice)');
  await configureSandbox(request, 'payments', { failureRate: 1 });
  const { runId } = await sendWebhook(request, hookId!, order('evt_fail_invoice', '7201'));

  await runPage.open(runId);
  await runPage.waitForStatus('failed');
  await expect(runPage.node('invoice')).toHaveAttribute('data-status', 'failed');
  await expect(runPage.node('receipt')).toHaveAttribute('data-status', 'not_reached');
  await expect(runPage.entriesOfType('step.retry_scheduled')).toHaveCount(3);
  await expect(runPage.entriesOfType('step.failed')).toContainText('Failed');

  await configureSandbox(request, 'payments', { failureRate: 0 });
  await runPage.button('Rerun').click();
  const preview = runPage.rerunDialog().getByTestId('rerun.preview');
  await expect(preview.locator('[data-action="act"]')).toHaveCount(2);
  await expect(preview.locator('[data-action="act"]').first()).toContainText('Create invoice');
  await expect(preview.locator('[data-action="act"]').first()).toContainText('Acts again');
  await runPage.button('Rerun now').click();

  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('run.rerun')).toHaveCount(1);
  await expect(runPage.node('invoice')).toHaveAttribute('data-status', 'succeeded');
  expect(await sandboxEffects(request, 'payments')).toBe(1);
  expect(await sandboxEffects(request, 'email')).toBe(1);
});

test('a rerun after the email failed skips the finished invoice and makes no second one', async ({ runPage, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (failed email)');
  await configureSandbox(request, 'email', { failureRate: 1 });
  const { runId } = await sendWebhook(request, hookId!, order('evt_fail_email', '7301'));

  await runPage.open(runId);
  await runPage.waitForStatus('failed');
  await expect(runPage.node('invoice')).toHaveAttribute('data-status', 'succeeded');
  await expect(runPage.node('receipt')).toHaveAttribute('data-status', 'failed');

  await configureSandbox(request, 'email', { failureRate: 0 });
  await runPage.button('Rerun').click();
  const preview = runPage.rerunDialog().getByTestId('rerun.preview');
  await expect(preview.locator('[data-action="skip"]')).toContainText('Create invoice');
  await expect(preview.locator('[data-action="skip"]')).toContainText('already finished in attempt 1');
  await expect(preview.locator('[data-action="act"]')).toContainText('Email the receipt');
  await runPage.button('Rerun now').click();

  await runPage.waitForStatus('succeeded');
  const skipped = runPage.entriesOfType('step.skipped');
  await expect(skipped).toHaveCount(1);
  await expect(skipped).toContainText('Skipped');
  await expect(skipped).toContainText('Create invoice');
  await expect(skipped).toContainText('This step already finished in attempt 1');
  expect(await sandboxEffects(request, 'payments')).toBe(1);
  expect(await sandboxEffects(request, 'email')).toBe(1);
});

test('an email whose answer was lost needs review; "It happened" ends the run without a second email', async ({ runPage, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (lost answer)');
  await configureSandbox(request, 'email', { dropAnswer: true });
  const { runId } = await sendWebhook(request, hookId!, order('evt_lost', '7401'));

  await runPage.open(runId);
  await runPage.waitForStatus('needs_review');
  await expect(runPage.status()).toHaveText('needs review');
  await expect(runPage.node('receipt')).toHaveAttribute('data-status', 'uncertain');
  await expect(runPage.entries('Outcome unknown')).toContainText('Choose what happened');
  await expect(runPage.button('It did not happen — do it now')).toBeVisible();
  await expect(runPage.button('Skip')).toBeVisible();
  expect(await sandboxEffects(request, 'email')).toBe(1);

  await configureSandbox(request, 'email', { dropAnswer: false });
  await runPage.button('It happened').click();
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entries('Decision recorded')).toContainText('said it happened');
  await expect(runPage.button('It happened')).toHaveCount(0);
  expect(await sandboxEffects(request, 'email')).toBe(1);
  expect(await sandboxEffects(request, 'payments')).toBe(1);
  const detail = await trpcCall<{ steps: Array<{ nodeId: string; status: string }> }>(request, 'runs.get', { runId }, 'query');
  expect(detail.steps.find((step) => step.nodeId === 'receipt')?.status).toBe('succeeded');
});
