/**
 * Pausing a flow during an incident: Pause on the flow list (or in the editor), webhooks
 * keep arriving and are recorded, "Paused — N events waiting", nothing is sent; Resume and
 * every held run succeeds, each side effect once. At desktop and phone width.
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from '../fixtures/index.ts';
import { fitsWidth } from '../fixtures/a11y.ts';
import { resetSandbox, sandboxEffects, seedTemplate, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';

const TEMPLATE = 'order-paid-invoice-receipt';

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 80, currency: 'EUR', customer: { email: 'bo@example.com', name: 'Bo' } } };
}

async function runStatus(request: APIRequestContext, runId: string): Promise<string> {
  return (await trpcCall<{ run: { status: string } }>(request, 'runs.get', { runId }, 'query')).run.status;
}

test.beforeEach(async ({ request }) => {
  await resetSandbox(request);
});

test.describe('at desktop width', () => {
  test.use({ viewport: { width: 1600, height: 900 } });

  test('Pause on the flow list holds deliveries; Resume runs each once', async ({ flowList, page, request }) => {
    const name = 'Invoices (paused on the list)';
    const { hookId } = await seedTemplate(request, TEMPLATE, name);
    await flowList.open();
    const row = flowList.rows().filter({ hasText: name });
    await row.getByRole('button', { name: `Pause ${name}` }).click();
    await expect(row.getByTestId('flow-pause.status')).toHaveText('Paused — 0 events waiting');

    const first = await sendWebhook(request, hookId!, order('evt_p1', '8101'));
    const second = await sendWebhook(request, hookId!, order('evt_p2', '8102'));
    const repeat = await sendWebhook(request, hookId!, order('evt_p1', '8101'));
    expect(repeat).toEqual({ duplicate: true, runId: first.runId });
    await expect(row.getByTestId('flow-pause.status')).toHaveText('Paused — 2 events waiting', { timeout: 10_000 });
    expect(await runStatus(request, first.runId)).toBe('held');
    expect(await runStatus(request, second.runId)).toBe('held');
    expect(await sandboxEffects(request, 'payments')).toBe(0);

    // The run page names the status too.
    await page.goto(`/runs/${first.runId}`);
    await expect(page.getByText('held (flow paused)').first()).toBeVisible();

    await flowList.open();
    await row.getByRole('button', { name: `Resume ${name}` }).click();
    await expect(row.getByTestId('flow-pause.status')).toHaveCount(0);
    await waitForRun(request, first.runId, ['succeeded']);
    await waitForRun(request, second.runId, ['succeeded']);
    expect(await sandboxEffects(request, 'payments')).toBe(2);
    expect(await sandboxEffects(request, 'email')).toBe(2);
  });

  test('Pause and Resume in the editor header', async ({ editor, page, request }) => {
    const name = 'Invoices (paused in the editor)';
    const { flowId, hookId } = await seedTemplate(request, TEMPLATE, name);
    await editor.open(flowId);
    const toolbar = page.getByRole('toolbar', { name: 'Flow' });
    await toolbar.getByRole('button', { name: /^Pause/ }).click();
    await expect(toolbar.getByTestId('flow-pause.status')).toHaveText('Paused — 0 events waiting');
    const { runId } = await sendWebhook(request, hookId!, order('evt_e1', '8201'));
    await expect(toolbar.getByTestId('flow-pause.status')).toHaveText('Paused — 1 event waiting', { timeout: 10_000 });
    expect(await sandboxEffects(request, 'payments')).toBe(0);

    await toolbar.getByRole('button', { name: /^Resume/ }).click();
    await waitForRun(request, runId, ['succeeded']);
    await expect(toolbar.getByRole('button', { name: /^Pause/ })).toBeVisible();
    expect(await sandboxEffects(request, 'payments')).toBe(1);
  });
});

test.describe('at phone width', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('the flow card pauses and resumes without sideways scrolling', async ({ flowList, request, page }) => {
    const name = 'Invoices (paused on a phone)';
    const { hookId } = await seedTemplate(request, TEMPLATE, name);
    await flowList.open();
    const card = flowList.rows().filter({ hasText: name });
    await card.getByRole('button', { name: `Pause ${name}` }).click();
    // The pause is in place once the card says so; a delivery sent before that would run.
    await expect(card.getByTestId('flow-pause.status')).toHaveText('Paused — 0 events waiting');
    const { runId } = await sendWebhook(request, hookId!, order('evt_m1', '8301'));
    await expect(card.getByTestId('flow-pause.status')).toHaveText('Paused — 1 event waiting', { timeout: 10_000 });
    await fitsWidth(page);
    expect(await runStatus(request, runId)).toBe('held');

    await card.getByRole('button', { name: `Resume ${name}` }).click();
    await waitForRun(request, runId, ['succeeded']);
    expect(await sandboxEffects(request, 'payments')).toBe(1);
    await fitsWidth(page);
  });
});
