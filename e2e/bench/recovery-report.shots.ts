/**
 * The README's screenshot of a recovery report: twelve orders whose CRM step failed during
 * an outage, the fix published, and the window recovered from the runs page with Recover….
 * Writes docs/screenshots/recovery-report.png.
 *
 *   npx vite build && PLAYWRIGHT_CHROMIUM_PATH=/usr/bin/chromium \
 *     npx playwright test --config e2e/bench.config.ts recovery-report
 */
import { expect, test } from '../fixtures/index.ts';
import { resetSandbox, seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';

const OUT = 'docs/screenshots';

function effect(id: string, label: string, url: string, x: number) {
  return {
    id, type: 'http.request', position: { x, y: 80 },
    data: { label, sideEffect: true, key: `{{ trigger.body.order.id }}:${id}`, onUncertain: 'review', retry: { max: 0 }, request: { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"order": "{{ trigger.body.order.id }}", "text": "Order {{ trigger.body.order.id }} is paid"}' } },
  };
}

function orderFlow(base: string, contactPath: string) {
  return {
    format: 'onceflow/v1', name: 'Order paid', sampleInput: { order: { id: '4417' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 80 }, data: { label: 'Start' } },
      effect('invoice', 'Create invoice', `${base}/sandbox/payments/invoices`, 300),
      effect('contact', 'Add the contact to the CRM', `${base}${contactPath}`, 600),
      effect('message', 'Tell the team', `${base}/sandbox/chat/messages`, 900),
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }, { id: 'e2', source: 'invoice', target: 'contact' }, { id: 'e3', source: 'contact', target: 'message' }],
  };
}

test('screenshot of a recovery report', async ({ page, request, baseURL }) => {
  await resetSandbox(request);
  const flowId = await seedFlow(request, orderFlow(baseURL!, '/sandbox/crm/Down For Maintenance'));
  await trpcCall(request, 'flows.publish', { id: flowId });
  for (let order = 4401; order <= 4412; order++) {
    const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: { order: { id: String(order) } } });
    await waitForRun(request, runId, ['failed']);
  }
  await trpcCall(request, 'flows.saveDraft', { id: flowId, document: orderFlow(baseURL!, '/sandbox/crm/contacts') });
  await trpcCall(request, 'flows.publish', { id: flowId });

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/runs?flow=${flowId}`);
  await page.getByRole('button', { name: 'Recover…' }).click();
  const dialog = page.getByTestId('recover.dialog');
  await dialog.getByLabel('Name').fill('CRM outage 30 Nov');
  await expect(dialog.getByTestId('recover.sentence')).toContainText('12 runs');
  await dialog.getByRole('button', { name: 'Rerun 12 runs' }).click();
  await dialog.getByRole('link', { name: 'Open the report' }).click();
  await expect(page.getByRole('list', { name: 'Runs' })).toContainText('0 still going', { timeout: 60_000 });
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${OUT}/recovery-report.png`, fullPage: true });
});
