/**
 * Named samples and Try this step: a sample added and picked in the editor drives the key
 * preview, and Try this step shows the request the step would send for it — the key in
 * its header, a secret masked — without a run. At desktop and phone width, with axe.
 */
import type { Page } from '@playwright/test';
import { seedFlow, trpcCall } from '../fixtures/api.ts';
import { orderFlowDocument, ORDER_SAMPLE } from '../fixtures/flows.ts';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { clickStep } from '../fixtures/canvas.ts';

const SECRET_VALUE = 'sk_test_samples_9d41c7e2b5';

/** The order flow with a secret in a header and the key passed to the receiver; cleaned up after the test. */
async function seedKeyedFlow(page: Page, name: string, samples?: unknown) {
  const secret = `SAMPLES_${Date.now()}`;
  await trpcCall(page.request, 'secretAdmin.save', { name: secret, value: SECRET_VALUE });
  const document = orderFlowDocument(name);
  const nodes = document.nodes.map((node) =>
    node.id !== 'invoice'
      ? node
      : {
          ...node,
          data: {
            ...node.data,
            receiverKeyHeader: 'Idempotency-Key',
            request: { method: 'POST', url: 'http://127.0.0.1:9/invoices', headers: { authorization: `Bearer {{ secrets.${secret} }}` }, body: '{"order": "{{ trigger.body.order.id }}"}' },
          },
        },
  );
  const flowId = await seedFlow(page.request, { ...document, nodes, ...(samples ? { samples } : {}) });
  return {
    flowId,
    cleanUp: async () => {
      await trpcCall(page.request, 'flows.delete', { id: flowId });
      await trpcCall(page.request, 'secretAdmin.delete', { name: secret });
    },
  };
}

test.describe('at desktop width', () => {
  test.use({ viewport: { width: 1400, height: 900 } });

  test('adds a named sample, picks it for the key preview, and tries the step with it', async ({ editor, page }) => {
    test.setTimeout(90_000);
    const { flowId, cleanUp } = await seedKeyedFlow(page, `Samples ${Date.now()}`);
    await editor.open(flowId);

    await page.getByRole('tab', { name: 'Sample inputs' }).click();
    await page.getByRole('button', { name: 'Add a sample' }).click();
    await expect(page.getByRole('radio', { name: 'Sample 2' })).toBeChecked();
    await page.getByRole('textbox', { name: 'Name of this sample' }).fill('order 4418');
    await expect(page.getByRole('radio', { name: 'order 4418' })).toBeChecked();
    const box = page.getByRole('textbox', { name: 'Sample “order 4418” (JSON)' });
    // A copy of the sample it was added from, to edit.
    await expect(box).toHaveValue(JSON.stringify(ORDER_SAMPLE, null, 2));
    await box.fill(JSON.stringify({ ...ORDER_SAMPLE, id: 'evt_2', order: { ...ORDER_SAMPLE.order, id: '4418' } }, null, 2));
    expect(await seriousFindings(page)).toEqual([]);

    // A name another sample has is refused in words and never saved.
    await page.getByRole('textbox', { name: 'Name of this sample' }).fill('Sample input');
    await expect(page.getByRole('alert')).toContainText('"Sample input" is the name of the flow\'s first sample');
    await page.getByRole('textbox', { name: 'Name of this sample' }).fill('order 4418');

    await page.getByRole('tab', { name: 'Step' }).click();
    await clickStep(editor.node('http.request'));
    await expect(editor.keyPreview()).toContainText("For the sample “order 4418” this step's key is 4418:invoice");

    await page.getByRole('tab', { name: 'Sample inputs' }).click();
    await page.getByRole('radio', { name: 'Sample input' }).check();
    await page.getByRole('tab', { name: 'Step' }).click();
    await expect(editor.keyPreview()).toContainText("For the sample input this step's key is 4417:invoice");
    await page.getByRole('tab', { name: 'Sample inputs' }).click();
    await page.getByRole('radio', { name: 'order 4418' }).check();
    await page.getByRole('tab', { name: 'Step' }).click();
    await expect(editor.keyPreview()).toContainText('4418:invoice');

    await page.getByTestId('try-step.run').click();
    const result = page.getByTestId('try-step.result');
    await expect(result).toContainText('For the sample “order 4418”; the flow has not been run from the editor yet. Nothing was sent.');
    await expect(page.getByTestId('try-step.request-line')).toHaveText('POST http://127.0.0.1:9/invoices');
    const headers = page.getByTestId('try-step.headers');
    await expect(headers).toContainText('authorizationBearer ••••••');
    await expect(headers).toContainText('Idempotency-Key4418:invoice');
    await expect(page.getByTestId('try-step.body')).toHaveText('{"order": "4418"}');
    await expect(page.getByTestId('try-step.key')).toContainText(`Key 4418:invoice in the scope ${flowId}:invoice, sent to the receiver in the header Idempotency-Key.`);
    await expect(result).toContainText('A test run from the editor passes test:editor:4418:invoice instead');
    await expect(page.locator('body')).not.toContainText(SECRET_VALUE);
    expect(await seriousFindings(page)).toEqual([]);

    // The payments stand-in honours keys: a second send is answered from its record. (Its
    // record outlives this flow, so only the repeat is certain to be a repeat.)
    await page.getByTestId('try-step.send').click();
    await expect(page.getByTestId('try-step.stand-in')).toContainText('Sent to the payments stand-in (honours keys) with the key test:editor:4418:invoice.');
    await page.getByTestId('try-step.send').click();
    await expect(page.getByTestId('try-step.stand-in')).toContainText('It had seen this key before, so it answered from its record and did nothing again');
    await expect(page.getByTestId('try-step.stand-in')).toContainText('"replayed": true');
    await expect(page.locator('body')).not.toContainText(SECRET_VALUE);

    // The named sample is part of the saved draft.
    await editor.waitSaved();
    const flow = await trpcCall<{ draft: { samples?: Array<{ name: string; input: { order: { id: string } } }> } }>(page.request, 'flows.get', { id: flowId }, 'query');
    expect(flow.draft.samples?.map((sample) => [sample.name, sample.input.order.id])).toEqual([['order 4418', '4418']]);
    await cleanUp();
  });

  test('Try this step names a field the chosen sample lacks instead of failing', async ({ editor, page }) => {
    const { flowId, cleanUp } = await seedKeyedFlow(page, `Samples missing ${Date.now()}`, [{ name: 'refund', input: { refund: { id: 'r_1' } } }]);
    await editor.open(flowId);
    await page.getByRole('tab', { name: 'Sample inputs' }).click();
    await page.getByRole('radio', { name: 'refund' }).check();
    await page.getByRole('tab', { name: 'Step' }).click();
    await clickStep(editor.node('http.request'));
    await page.getByTestId('try-step.run').click();
    await expect(page.getByTestId('try-step.problems')).toContainText(
      'The key: the sample "refund" has no field "order.id", so "trigger.body.order.id" cannot be filled in. Add it to the sample, or pick another sample.',
    );
    await cleanUp();
  });
});

test.describe('at phone width', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('samples can be picked and a step tried on a phone, within the screen', async ({ editor, page }) => {
    test.setTimeout(90_000);
    const { flowId, cleanUp } = await seedKeyedFlow(page, `Samples phone ${Date.now()}`, [{ name: 'order with a long name 4418', input: { order: { id: '4418' } } }]);
    await editor.open(flowId);
    await page.getByRole('tab', { name: 'Sample inputs' }).click();
    await page.getByRole('radio', { name: 'order with a long name 4418' }).check();
    await expect(page.getByRole('textbox', { name: 'Name of this sample' })).not.toBeEditable();
    expect(await seriousFindings(page)).toEqual([]);

    await page.getByRole('tab', { name: 'Step' }).click();
    await clickStep(editor.node('trigger.webhook'));
    // The trigger sends nothing itself, so it has nothing to try.
    await expect(page.getByTestId('try-step')).toHaveCount(0);
    await page.getByRole('tab', { name: 'Step' }).click();
    await clickStep(page.locator('.react-flow__node[data-id="invoice"]'));
    await page.getByTestId('try-step.run').click();
    await expect(page.getByTestId('try-step.key')).toContainText('Key 4418:invoice');
    expect(await seriousFindings(page)).toEqual([]);
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.view);
    await cleanUp();
  });
});
