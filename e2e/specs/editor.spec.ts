import { expect, test } from '../fixtures/index.ts';
import { seedFlow, trpcCall } from '../fixtures/api.ts';
import { orderFlowDocument, ORDER_SAMPLE } from '../fixtures/flows.ts';
import { clickStep } from '../fixtures/canvas.ts';

// Wide enough for three steps side by side between the palette and the side panel.
test.use({ viewport: { width: 1600, height: 900 } });

test('builds a flow from an empty canvas with the mouse, keys it and publishes it', async ({ editor, flowList, page, request }) => {
  const flowId = await seedFlow(request, { format: 'onceflow/v1', name: 'Built by hand', sampleInput: ORDER_SAMPLE, nodes: [], edges: [] });
  await editor.open(flowId);
  await expect(page.getByText('Start with a trigger')).toBeVisible();

  await editor.dragKindToCanvas('Webhook trigger', { x: 160, y: 300 });
  await editor.dragKindToCanvas('HTTP request', { x: 480, y: 300 });
  await editor.dragKindToCanvas('Send email', { x: 800, y: 300 });
  const [hook, http, email] = [editor.node('trigger.webhook'), editor.node('http.request'), editor.node('email.send')];
  await expect(hook).toHaveCount(1);
  await expect(http).toHaveCount(1);
  await expect(email).toHaveCount(1);

  await editor.connect(hook, http);
  await editor.connect(http, email);
  await expect(editor.edges()).toHaveCount(2);

  // A new HTTP request has no URL yet: the step says so on the canvas.
  await expect(http.getByTestId('node.problem')).toContainText('URL');

  await http.click();
  await editor.field('URL').fill('http://127.0.0.1:9/invoices');
  await editor.sideEffectSwitch().check();
  await expect(http.getByText('Side effect')).toBeVisible();

  await page.getByRole('button', { name: 'Insert a field into Idempotency key' }).click();
  await page.getByTestId('field-picker').getByRole('button', { name: 'order.id', exact: true }).click();
  await expect(editor.keyField()).toHaveValue('{{ trigger.body.order.id }}');
  await editor.keyField().press('End');
  await editor.keyField().pressSequentially(':invoice');
  await expect(editor.keyPreview()).toContainText("For the sample input this step's key is 4417:invoice");

  await email.click();
  await editor.field('To').fill('{{ trigger.body.order.customer.email }}');
  await editor.field('From').fill('shop@example.com');
  await editor.field('Subject').fill('Your receipt');
  await page.getByRole('button', { name: 'Use the key {{ trigger.body.order.id }}:send-email' }).click();
  await expect(editor.keyPreview()).toContainText('4417:send-email');

  await editor.waitSaved();
  await expect(page.getByTestId('editor.problems')).toHaveText('Problems: none');
  await editor.publish();
  await expect(editor.notice()).toContainText('Published version 1');

  await flowList.open();
  await expect(flowList.rows().filter({ hasText: 'Built by hand' })).toContainText('v1');
  const flow = await trpcCall<{ draft: { nodes: Array<{ type: string; data: Record<string, unknown> }> } }>(request, 'flows.get', { id: flowId }, 'query');
  expect(flow.draft.nodes.find((node) => node.type === 'http.request')?.data).toMatchObject({ sideEffect: true, key: '{{ trigger.body.order.id }}:invoice' });
});

test('a key that changes on every attempt is an error and blocks publishing', async ({ editor, page, request }) => {
  const flowId = await seedFlow(request, orderFlowDocument('Key that changes'));
  await editor.open(flowId);
  await clickStep(editor.node('http.request'));

  await editor.keyField().fill('{{ trigger.body.order.id }}-{{ now }}');
  await expect(editor.keyLint()).toContainText('This key changes on every attempt, so it cannot stop duplicates.');
  await expect(editor.node('http.request').getByRole('img', { name: /Needs fixing/ })).toBeVisible();

  await editor.publish();
  await expect(editor.notice()).toContainText('This flow cannot be published yet');
  await expect(editor.notice()).toContainText('changes on every attempt');
  expect(await trpcCall<unknown[]>(request, 'flows.versions', { id: flowId }, 'query')).toHaveLength(0);

  // A key with the run id is allowed, with a warning about replays.
  await editor.keyField().fill('{{ trigger.body.order.id }}-{{ run.id }}');
  await expect(editor.keyLint()).toContainText('A replayed or re-delivered event gets a new run id');
  await expect(editor.keyPreview()).toContainText('4417-sample-run');
  await editor.waitSaved();
  await editor.publish();
  await expect(editor.notice()).toContainText('Published version 1');
  await expect(page.getByTestId('editor.problems')).toHaveText(/Problems: 1 warning/);
});

test('the sample input feeds previews and is never saved broken', async ({ editor, page, request }) => {
  const flowId = await seedFlow(request, orderFlowDocument('Sample input'));
  await editor.open(flowId);
  await page.getByRole('tab', { name: 'Sample input' }).click();
  const sample = page.getByRole('textbox', { name: 'Sample input' });

  await sample.fill('{ "order": { "id": "9001" ');
  await expect(page.getByTestId('sample-input.error')).toContainText('Not valid JSON at line 1, column 27');
  await expect(editor.saveStatus()).toHaveText('Sample input not saved');
  const saved = await trpcCall<{ draft: { sampleInput: unknown } }>(request, 'flows.get', { id: flowId }, 'query');
  expect(saved.draft.sampleInput).toEqual(ORDER_SAMPLE);

  await sample.fill('{ "order": { "id": "9001" } }');
  await expect(page.getByTestId('sample-input.error')).toHaveCount(0);
  await editor.waitSaved();
  await clickStep(editor.node('http.request'));
  await expect(editor.keyPreview()).toContainText('9001:invoice');
});

test('a change made just before leaving the editor is kept', async ({ editor, flowList, page, request }) => {
  const flowId = await seedFlow(request, orderFlowDocument('Before leaving'));
  await editor.open(flowId);
  await page.getByRole('textbox', { name: 'Flow name' }).fill('Renamed before leaving');
  await page.getByRole('link', { name: '← Flows' }).click();
  await expect(flowList.rows().filter({ hasText: 'Renamed before leaving' })).toHaveCount(1);
});
