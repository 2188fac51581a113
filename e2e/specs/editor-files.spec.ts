import { readFile } from 'node:fs/promises';
import { expect, test } from '../fixtures/index.ts';
import { seedFlow, trpcCall } from '../fixtures/api.ts';
import { orderFlowDocument } from '../fixtures/flows.ts';

test.use({ viewport: { width: 1600, height: 900 } });

test('imports a flow file and exports the same document back', async ({ editor, flowList, page }) => {
  const original = orderFlowDocument('Imported invoices');
  await flowList.open();
  await flowList.importFile('imported-invoices.onceflow.json', original);
  await expect(page).toHaveURL(/\/flows\/flow_/);
  await expect(editor.node('http.request')).toBeVisible();

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('imported-invoices.onceflow.json');
  const exported = JSON.parse(await readFile(await file.path(), 'utf8')) as typeof original;
  expect(exported.nodes).toEqual(original.nodes);
  expect(exported.edges).toEqual(original.edges);
  expect(exported.sampleInput).toEqual(original.sampleInput);
});

test('refuses a file that is not a flow, in plain words', async ({ flowList, page }) => {
  await flowList.open();
  await flowList.importFile('notes.json', { hello: 'world' });
  await expect(page.getByRole('alert')).toContainText('This file is not an Onceflow flow');
  await expect(page).toHaveURL(/\/$/);
});

for (const name of ['Order paid → invoice → receipt email', 'Lead outreach sequence', 'Payment events in any order']) {
  test(`the template "${name}" makes an editable copy that publishes without changes`, async ({ editor, flowList, page, request }) => {
    await flowList.open();
    await flowList.useTemplate(name);
    await expect(page).toHaveURL(/\/flows\/flow_/);
    await expect(page.getByRole('textbox', { name: 'Flow name' })).toHaveValue(name);
    await expect(page.getByTestId('editor.problems')).toHaveText('Problems: none');
    await editor.publish();
    await expect(editor.notice()).toContainText('Published version 1');
    await page.getByRole('tab', { name: 'Versions' }).click();
    await expect(page.getByTestId('versions.item')).toContainText(['Version 1']);
    await expect(page.getByTestId('versions.item')).toContainText('Published by admin');

    // Other specs look flows up by name; the copy is not needed after this test.
    const flowId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    await trpcCall(request, 'flows.delete', { id: flowId });
  });
}

test('Test run tests the draft without publishing it and opens the test run', async ({ editor, page, request }) => {
  const document = {
    format: 'onceflow/v1',
    name: 'Run me',
    sampleInput: { order: { id: '4417' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Start' } },
      { id: 'pick', type: 'transform', position: { x: 320, y: 0 }, data: { label: 'Pick the order', outputs: { order: '{{ trigger.body.order.id }}' } } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'pick' }],
  };
  const flowId = await seedFlow(request, document);
  const before = (await trpcCall<unknown[]>(request, 'flows.versions', { id: flowId }, 'query')).length;
  await editor.open(flowId);
  await page.getByRole('button', { name: 'Test run' }).click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  await expect(page.getByTestId('run.test-badge').first()).toHaveText('Test');
  await expect(page.locator('.run-head .badge--version')).toHaveText('draft');
  expect(await trpcCall<unknown[]>(request, 'flows.versions', { id: flowId }, 'query')).toHaveLength(before);

  // Left out of the runs list unless asked for.
  const runId = new URL(page.url()).pathname.split('/').at(-1)!;
  await page.goto(`/runs?flow=${flowId}`);
  await expect(page.locator(`[data-run-id="${runId}"]`)).toHaveCount(0);
  // The empty list says the flow's test runs are there, one click away.
  const empty = page.getByTestId('runs.empty');
  await expect(empty).toContainText('No live runs match these filters, but test runs do.');
  await empty.getByRole('button', { name: 'Show test runs' }).click();
  await expect(page.getByTestId('runs.mode')).toHaveValue('test');
  await expect(page.locator(`[data-run-id="${runId}"]`).first()).toBeVisible();
  await page.getByTestId('runs.mode').selectOption('live');
  await expect(empty).toContainText('but test runs do');
});
