/**
 * Guarding a key change at publish: a live flow has handled three orders; the person
 * changes the invoice step's key in the editor and clicks Publish. A dialog says how many
 * past events would get new keys (two: their ref differs from their id) and how many keep
 * theirs (one), with an example, and publishes only after the confirmation; the version
 * list then says who confirmed it. A key field missing from the sample is a problem with
 * a confirm button in the inspector.
 *
 *   start (manual) ──▶ invoice (payments stand-in)
 */
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';
import { clickStep } from '../fixtures/canvas.ts';

test.use({ viewport: { width: 1400, height: 900 } });

function invoiceFlow(name: string, base: string) {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: { order: { id: '4417', ref: 'INV-4417' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 80 }, data: { label: 'Start' } },
      {
        id: 'invoice', type: 'http.request', position: { x: 300, y: 80 },
        data: { label: 'Create invoice', sideEffect: true, key: '{{ trigger.body.order.id }}:invoice', retry: { max: 0 }, request: { method: 'POST', url: `${base}/sandbox/payments/invoices`, headers: { 'content-type': 'application/json' }, body: '{"order": "{{ trigger.body.order.id }}"}' } },
      },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }],
  };
}

test('changing a key: Publish shows the past events that would act again and needs a confirmation', async ({ editor, page, request, baseURL }) => {
  const unique = `${Date.now()}`;
  const flowId = await seedFlow(request, invoiceFlow(`Guarded publish ${unique}`, baseURL!));
  await trpcCall(request, 'flows.publish', { id: flowId });
  for (const order of [{ id: `a${unique}`, ref: `A-${unique}` }, { id: `b${unique}`, ref: `B-${unique}` }, { id: `c${unique}`, ref: `c${unique}` }]) {
    const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: { order } });
    await waitForRun(request, runId, ['succeeded']);
  }

  await editor.open(flowId);
  await clickStep(page.locator('.react-flow__node[data-id="invoice"]'));
  await editor.keyField().fill('{{ trigger.body.order.ref }}:invoice');
  await editor.waitSaved();
  await editor.publish();

  const dialog = editor.keyChangesDialog();
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('compares the 3 past events of this flow');
  const step = dialog.getByTestId('publish.key-change');
  await expect(step).toContainText('Create invoice');
  await expect(step).toContainText('2 past events would get new keys and would act again if replayed or sent again.');
  await expect(step).toContainText('1 past event keeps the same key');
  await expect(step).toContainText(`b${unique}:invoice → B-${unique}:invoice`);
  expect(await seriousFindings(page, { within: '[data-testid="publish.key-changes"]' })).toEqual([]);

  // Nothing is published until the confirmation.
  expect((await trpcCall<unknown[]>(request, 'flows.versions', { id: flowId }, 'query')).length).toBe(1);
  await editor.confirmKeyChanges();
  await expect(editor.notice()).toContainText('Published version 2');
  await expect(dialog).toBeHidden();

  await page.getByRole('tab', { name: 'Versions' }).click();
  const newest = page.getByTestId('versions.item').first();
  await expect(newest).toContainText('Version 2');
  await expect(newest.getByTestId('versions.key-change')).toContainText('Key change confirmed by admin');
  await expect(newest.getByTestId('versions.key-change')).toContainText('Create invoice (2 past events with new keys)');

  await trpcCall(request, 'flows.delete', { id: flowId });
});

test('a key field missing from the sample is a problem until confirmed in the inspector', async ({ editor, page, request, baseURL }) => {
  const flowId = await seedFlow(request, invoiceFlow(`Missing key field ${Date.now()}`, baseURL!));
  await editor.open(flowId);
  await clickStep(page.locator('.react-flow__node[data-id="invoice"]'));
  await editor.keyField().fill('{{ trigger.body.customer.id }}:invoice');
  await expect(editor.keyLint()).toContainText('This key uses {{ trigger.body.customer.id }}, which the sample input does not have.');
  await page.getByTestId('key.confirm-fields').click();
  await expect(page.getByTestId('key.confirmed')).toBeVisible();
  await expect(editor.keyLint()).toBeHidden();
  await editor.waitSaved();
  const flow = await trpcCall<{ draft: { nodes: Array<{ id: string; data: Record<string, unknown> }> }; problems: Array<{ code: string }> }>(request, 'flows.get', { id: flowId }, 'query');
  expect(flow.draft.nodes.find((node) => node.id === 'invoice')?.data.keyConfirmed).toBe('{{ trigger.body.customer.id }}:invoice');
  expect(flow.problems.map((problem) => problem.code)).not.toContain('key_field_missing');

  // Editing the key asks again.
  await editor.keyField().fill('{{ trigger.body.customer.email }}:invoice');
  await expect(editor.keyLint()).toContainText('which the sample input does not have');
  await trpcCall(request, 'flows.delete', { id: flowId });
});
