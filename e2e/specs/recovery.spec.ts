/**
 * Recover a time window from the runs page: three runs fail at the contact step on v1
 * (the CRM address is wrong); v2 fixes it. "Recover…" shows one summed preview — the
 * invoices stop as duplicates, the contact and the message act — starts, shows its
 * progress, and links to the report, whose figures match the sandbox's ledgers and whose
 * CSV has a line per run. The dialog and the report pass the audit at phone width.
 *
 *   start (manual) ──▶ invoice (payments) ──▶ contact (CRM) ──▶ message (chat)
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { resetSandbox, sandboxEffects, seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';

function effect(id: string, label: string, url: string, x: number) {
  return {
    id, type: 'http.request', position: { x, y: 80 },
    data: { label, sideEffect: true, key: `{{ trigger.body.order.id }}:${id}`, onUncertain: 'review', retry: { max: 0 }, request: { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"order": "{{ trigger.body.order.id }}", "text": "Order {{ trigger.body.order.id }} is paid"}' } },
  };
}

function orderFlow(name: string, base: string, contactPath: string) {
  return {
    format: 'onceflow/v1', name, sampleInput: { order: { id: '4417' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 80 }, data: { label: 'Start' } },
      effect('invoice', 'Create invoice', `${base}/sandbox/payments/invoices`, 300),
      effect('contact', 'Add the contact', `${base}${contactPath}`, 600),
      effect('message', 'Tell the team', `${base}/sandbox/chat/messages`, 900),
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }, { id: 'e2', source: 'invoice', target: 'contact' }, { id: 'e3', source: 'contact', target: 'message' }],
  };
}

/** A flow whose three runs failed on v1, with v2 (the fix) published. */
async function failedWindow(request: Parameters<typeof seedFlow>[0], name: string, base: string) {
  const flowId = await seedFlow(request, orderFlow(name, base, '/sandbox/crm/No Such Place'));
  await trpcCall(request, 'flows.publish', { id: flowId });
  for (const order of ['7501', '7502', '7503']) {
    const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: { order: { id: order } } });
    await waitForRun(request, runId, ['failed']);
  }
  await trpcCall(request, 'flows.saveDraft', { id: flowId, document: orderFlow(name, base, '/sandbox/crm/contacts') });
  await trpcCall(request, 'flows.publish', { id: flowId });
  return flowId;
}

test.beforeEach(async ({ request }) => {
  await resetSandbox(request);
});

test('Recover… previews the window, runs it with progress, and reports what the receivers saw', async ({ page, request, baseURL }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const flowId = await failedWindow(request, 'Recover a window', baseURL!);
  expect(await sandboxEffects(request, 'payments')).toBe(3);

  await page.goto(`/runs?flow=${flowId}`);
  await page.getByRole('button', { name: 'Recover…' }).click();
  const dialog = page.getByTestId('recover.dialog');
  await expect(dialog.getByRole('combobox', { name: 'Flow' })).toHaveValue(flowId);
  await expect(dialog.getByRole('checkbox', { name: 'Failed' })).toBeChecked();
  await expect(dialog.getByTestId('recover.sentence')).toHaveText('3 runs: 0 steps skipped, 3 duplicates stopped, “Add the contact” will act 3 times, “Tell the team” will act 3 times.');
  await expect(dialog.getByTestId('version.picker')).toContainText('3 runs ran on an older version than the latest published.');
  // Succeeded runs too: nothing matches them yet, so the sum stays.
  await dialog.getByRole('checkbox', { name: 'Succeeded' }).check();
  await expect(dialog.getByTestId('recover.sentence')).toContainText('3 runs:');
  await dialog.getByRole('checkbox', { name: 'Succeeded' }).uncheck();
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('CRM outage');
  await dialog.getByRole('button', { name: 'Rerun 3 runs' }).click();

  await expect(dialog.getByTestId('recover.progress')).toHaveAttribute('data-status', 'finished');
  await expect(dialog.getByRole('status')).toHaveText('Done: all 3 runs handled. They run now like any other run.');
  await dialog.getByRole('link', { name: 'Open the report' }).click();
  await expect(page).toHaveURL(/\/operations\/op_/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('CRM outage');
  await expect(page.getByTestId('operation.asked')).toContainText('Rerun failed runs of “Recover a window”');
  await expect(page.getByRole('list', { name: 'Runs' })).toContainText('0 still going', { timeout: 30_000 });
  const steps = page.getByTestId('operation.steps');
  await expect(steps.locator('tr[data-step="invoice"] td').nth(1)).toHaveText('0');
  await expect(steps.locator('tr[data-step="invoice"] td').nth(2)).toHaveText('3');
  await expect(steps.locator('tr[data-step="contact"] td').nth(1)).toHaveText('3');
  await expect(steps.locator('tr[data-step="message"] td').nth(1)).toHaveText('3');
  // The ledgers: one invoice per order in all, one contact and one message each since.
  expect(await sandboxEffects(request, 'payments')).toBe(3);
  expect(await sandboxEffects(request, 'crm')).toBe(3);
  expect(await sandboxEffects(request, 'chat')).toBe(3);

  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download CSV' }).click();
  const csv = readFileSync(await (await download).path(), 'utf8').trim().split('\r\n');
  expect(csv).toHaveLength(4);
  expect(csv.slice(1).every((line) => /,queued,\d+,run_[^,]+,succeeded,2,1,0,0,$/.test(line))).toBe(true);

  // At phone width: no sideways scrolling of the page, and nothing for the audit to find.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('CRM outage');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousFindings(page)).toEqual([]);

  // The runs page keeps the way back to it.
  await page.goto('/runs');
  await page.getByRole('navigation', { name: 'Recent recoveries' }).getByRole('link', { name: 'CRM outage' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('CRM outage');
});

test('the dialog at phone width: every choice reachable, nothing for the audit to find', async ({ page, request, baseURL }) => {
  const flowId = await failedWindow(request, 'Recover on a phone', baseURL!);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/runs?flow=${flowId}&status=failed`);
  // The old shortcut opens the same dialog, with that status and this flow chosen.
  await page.getByRole('button', { name: 'Rerun all failed runs…' }).click();
  const dialog = page.getByTestId('recover.dialog');
  await expect(dialog.getByTestId('recover.sentence')).toContainText('3 runs: 0 steps skipped, 3 duplicates stopped');
  await dialog.getByRole('radio', { name: 'Replay: a new run with the same input' }).check();
  await expect(dialog.getByRole('button', { name: 'Replay 3 runs' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousFindings(page)).toEqual([]);
});
