/**
 * Fix it, then rerun: a run fails at step 2 of 3 on v1 (the receiver refuses the wrong
 * address); the person fixes step 2 in the editor, publishes v2 and clicks Rerun. The
 * preview offers v2, says the invoice stops as a duplicate, the contact acts again and the
 * message runs for the first time; the run succeeds with one invoice. A key changed
 * between versions is a warning that needs a second click, and the timeline says why.
 *
 *   start (manual) ──▶ invoice (payments, honours keys) ──▶ contact (CRM) ──▶ message (chat)
 */
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { resetSandbox, sandboxEffects, seedFlow, seedTemplate, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';
import { clickStep } from '../fixtures/canvas.ts';

test.use({ viewport: { width: 1400, height: 900 } });

function effect(id: string, label: string, url: string, key: string, x: number) {
  return {
    id, type: 'http.request', position: { x, y: 80 },
    data: { label, sideEffect: true, key, onUncertain: 'review', retry: { max: 0 }, request: { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"order": "{{ trigger.body.order.id }}", "text": "Order {{ trigger.body.order.id }} is paid"}' } },
  };
}

function brokenFlow(name: string, base: string, contactPath = '/sandbox/crm/No Such Place') {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: { order: { id: '4417' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 80 }, data: { label: 'Start' } },
      effect('invoice', 'Create invoice', `${base}/sandbox/payments/invoices`, '{{ trigger.body.order.id }}:invoice', 300),
      // The mistake v1 ships with: an address the CRM does not have.
      effect('contact', 'Add the contact', `${base}${contactPath}`, '{{ trigger.body.order.id }}:contact', 600),
      effect('message', 'Tell the team', `${base}/sandbox/chat/messages`, '{{ trigger.body.order.id }}:message', 900),
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'invoice' },
      { id: 'e2', source: 'invoice', target: 'contact' },
      { id: 'e3', source: 'contact', target: 'message' },
    ],
  };
}

/** Seeds and publishes v1, runs it for `order` and waits for it to fail at the contact step. */
async function failOnV1(request: Parameters<typeof seedFlow>[0], name: string, base: string, order: string) {
  const flowId = await seedFlow(request, brokenFlow(name, base));
  await trpcCall(request, 'flows.publish', { id: flowId });
  const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: { order: { id: order } } });
  await waitForRun(request, runId, ['failed']);
  return { flowId, runId };
}

test.beforeEach(async ({ request }) => {
  await resetSandbox(request);
});

test('a step fixed in the editor and published: the rerun on v2 stops the invoice as a duplicate and finishes', async ({ editor, runPage, page, request, baseURL }) => {
  const { flowId, runId } = await failOnV1(request, 'Fix then rerun', baseURL!, '7401');
  expect(await sandboxEffects(request, 'payments')).toBe(1);

  await editor.open(flowId);
  await clickStep(page.locator('.react-flow__node[data-id="contact"]'));
  await editor.field('URL').fill(`${baseURL}/sandbox/crm/contacts`);
  await editor.waitSaved();
  await editor.publish();
  await expect(editor.notice()).toContainText('Published version 2');

  await runPage.open(runId);
  await runPage.button('Rerun').click();
  const dialog = runPage.rerunDialog();
  await expect(dialog.getByRole('radio', { name: 'The latest, v2 (published after this run)' })).toBeChecked();
  const preview = dialog.getByTestId('rerun.preview');
  await expect(preview.locator('li', { hasText: 'Create invoice' })).toHaveAttribute('data-action', 'deduplicate');
  await expect(preview.locator('li', { hasText: 'Create invoice' })).toContainText('Duplicate stopped');
  await expect(preview.locator('li', { hasText: 'Create invoice' })).toContainText('Key 7401:invoice was already done by this run');
  await expect(preview.locator('li', { hasText: 'Add the contact' })).toContainText('Acts again');
  await expect(preview.locator('li', { hasText: 'Tell the team' })).toContainText('Runs for the first time');

  // The version it ran is one click away, and its preview skips the finished invoice.
  await dialog.getByRole('radio', { name: 'The version it ran, v1' }).check();
  await expect(preview.locator('li', { hasText: 'Create invoice' })).toHaveAttribute('data-action', 'skip');
  await dialog.getByRole('radio', { name: /The latest, v2/ }).check();
  await expect(preview.locator('li', { hasText: 'Create invoice' })).toHaveAttribute('data-action', 'deduplicate');

  await dialog.getByRole('button', { name: 'Rerun on v2' }).click();
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('run.rerun')).toContainText('Rerun on v2 (was v1)');
  await expect(runPage.entriesOfType('step.duplicate')).toHaveCount(1);
  await expect(page.locator('.badge--version')).toHaveText('v2');
  expect(await sandboxEffects(request, 'payments')).toBe(1);
  expect(await sandboxEffects(request, 'crm')).toBe(1);
  expect(await sandboxEffects(request, 'chat')).toBe(1);
});

test('a key changed between versions: the preview warns, a second click confirms, and the step acts once more', async ({ editor, runPage, page, request, baseURL }) => {
  const { flowId, runId } = await failOnV1(request, 'Key changed', baseURL!, '7402');

  await editor.open(flowId);
  await clickStep(page.locator('.react-flow__node[data-id="contact"]'));
  await editor.field('URL').fill(`${baseURL}/sandbox/crm/contacts`);
  await clickStep(page.locator('.react-flow__node[data-id="invoice"]'));
  await editor.keyField().fill('{{ trigger.body.order.id }}:inv');
  await editor.waitSaved();
  await editor.publish();
  // Publish first says what the new key means for past events, then needs a confirmation.
  await expect(editor.keyChangesDialog()).toContainText('1 past event would get a new key');
  await editor.confirmKeyChanges();
  await expect(editor.notice()).toContainText('Published version 2');

  await runPage.open(runId);
  await runPage.button('Rerun').click();
  const dialog = runPage.rerunDialog();
  const invoice = dialog.getByTestId('rerun.preview').locator('li', { hasText: 'Create invoice' });
  await expect(invoice).toContainText('Acts again — its key changed');
  await expect(invoice).toContainText('Its key changed from 7402:invoice to 7402:inv');

  await dialog.getByRole('button', { name: 'Rerun on v2' }).click();
  await expect(dialog.getByTestId('rerun.confirm')).toContainText('One step that already acted will act again');

  // At phone width the dialog, its version choice and its warning fit without sideways scrolling and pass the audit.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousFindings(page, { within: '[data-testid="rerun.dialog"]' })).toEqual([]);
  expect((await trpcCall<{ run: { status: string } }>(request, 'runs.get', { runId }, 'query')).run.status).toBe('failed');
  await dialog.getByRole('button', { name: 'Yes, act again' }).click();

  await runPage.waitForStatus('succeeded');
  const rerun = runPage.entriesOfType('run.rerun');
  await expect(rerun).toContainText('Rerun on v2 (was v1)');
  await expect(rerun).toContainText('“Create invoice” acts again: its key changed from 7402:invoice to 7402:inv.');
  expect(await sandboxEffects(request, 'payments')).toBe(2);
});

test('replay with changes: the JSON box points at a mistake, the preview names the keys, a new order id acts', async ({ runPage, page, request, baseURL }) => {
  const flowId = await seedFlow(request, brokenFlow('Replay with changes', baseURL!, '/sandbox/crm/contacts'));
  await trpcCall(request, 'flows.publish', { id: flowId });
  const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: { order: { id: '7403' } } });
  await waitForRun(request, runId, ['succeeded']);

  await runPage.open(runId);
  await runPage.button('Replay with changes…').click();
  const dialog = page.getByTestId('replay-changes.dialog');
  const box = dialog.getByRole('textbox', { name: 'Input (JSON)' });
  await expect(box).toHaveValue(/"7403"/);
  const invoice = dialog.getByTestId('rerun.preview').locator('li', { hasText: 'Create invoice' });
  await expect(invoice).toHaveAttribute('data-action', 'deduplicate');
  await expect(invoice).toContainText('Key 7403:invoice was already done by run #');

  await box.fill('{ "order": { "id": "7404" ');
  await expect(dialog.getByTestId('replay-changes.mistake')).toContainText('Line 1, column');
  await expect(dialog.getByRole('button', { name: 'Replay with this input' })).toBeDisabled();

  await box.fill('{ "order": { "id": "7404" } }');
  await expect(invoice).toHaveAttribute('data-action', 'act');
  await expect(invoice).toContainText('Runs for the first time');
  await expect(invoice).toContainText('7404:invoice');
  await dialog.getByRole('button', { name: 'Replay with this input' }).click();
  await expect(page).not.toHaveURL(new RegExp(runId));
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('step.duplicate')).toHaveCount(0);
  expect(await sandboxEffects(request, 'payments')).toBe(2);
});

test('rerun all failed runs on the fixed version: the choice of version, a warning for a changed key, one more invoice', async ({ page, request, baseURL }) => {
  const { flowId, runId } = await failOnV1(request, 'Bulk on v2', baseURL!, '7405');
  const fixed = brokenFlow('Bulk on v2', baseURL!, '/sandbox/crm/contacts');
  const invoice = fixed.nodes.find((node) => node.id === 'invoice') as { data: { key: string } };
  invoice.data.key = '{{ trigger.body.order.id }}:inv';
  await trpcCall(request, 'flows.saveDraft', { id: flowId, document: fixed });
  // The key change is deliberate, so the publish confirms it.
  await trpcCall(request, 'flows.publish', { id: flowId, confirmKeyChanges: true });

  await page.goto(`/runs?flow=${flowId}`);
  await page.getByLabel('Status').selectOption('failed');
  await page.getByRole('button', { name: 'Rerun all failed runs…' }).click();
  const dialog = page.getByTestId('recover.dialog');
  await expect(dialog.getByTestId('version.picker')).toContainText('1 run ran on an older version than the latest published.');
  await expect(dialog.getByRole('radio', { name: 'The latest version of the flow' })).toBeChecked();
  await expect(dialog).toContainText('1 step that already acted will act again');
  await dialog.getByRole('button', { name: 'Rerun 1 run' }).click();
  await dialog.getByRole('button', { name: 'Yes, act again' }).click();
  await waitForRun(request, runId, ['succeeded']);
  expect(await sandboxEffects(request, 'payments')).toBe(2);
});

test('the inbox replays a delivery on the latest version, or on the version its run used', async ({ inbox, page, request }) => {
  const { flowId, hookId } = await seedTemplate(request, 'order-paid-invoice-receipt', 'Inbox on v2');
  const order = { id: 'evt_v2', type: 'order.paid', order: { id: '7406', total: 120, currency: 'EUR', customer: { email: 'ada@example.com', name: 'Ada' } } };
  const { runId } = await sendWebhook(request, hookId!, order);
  await waitForRun(request, runId, ['succeeded']);
  const flow = await trpcCall<{ draft: Record<string, unknown> }>(request, 'flows.get', { id: flowId }, 'query');
  await trpcCall(request, 'flows.saveDraft', { id: flowId, document: { ...flow.draft, description: 'Second version' } });
  await trpcCall(request, 'flows.publish', { id: flowId });

  const versionOf = async () => {
    await expect(page).not.toHaveURL(/inbox/);
    const replayId = new URL(page.url()).pathname.split('/').pop()!;
    return (await trpcCall<{ run: { version: number } }>(request, 'runs.get', { runId: replayId }, 'query')).run.version;
  };
  await inbox.open(flowId);
  await expect(page.getByRole('radio', { name: 'The latest, v2' })).toBeChecked();
  await inbox.rows().first().getByRole('button', { name: 'Replay', exact: true }).click();
  expect(await versionOf()).toBe(2);

  await inbox.open(flowId);
  await page.getByRole('radio', { name: 'The version each delivery’s run used' }).check();
  await inbox.rows().first().getByRole('button', { name: 'Replay', exact: true }).click();
  expect(await versionOf()).toBe(1);
});
