/**
 * Prove it, as a person uses it: on a gallery template, the editor's *Prove it* saves the
 * draft, opens the report, which follows the checks until every one has passed, with a
 * sentence per step and links to the test runs; the flow list then says the live version
 * is proven, and the editor says so when the draft changes afterwards.
 */
import { seedTemplate, trpcCall } from '../fixtures/api.ts';
import { expect, test } from '../fixtures/index.ts';
import { clickStep } from '../fixtures/canvas.ts';

test('Prove it on a gallery template: every check passes, the flow list shows it, a later edit is noted', async ({ page, editor, flowList }) => {
  test.setTimeout(90_000);
  const name = `Proven orders ${Date.now()}`;
  const { flowId } = await seedTemplate(page.request, 'order-paid-invoice-receipt', name);
  try {
    await editor.open(flowId);
    await expect(page.getByTestId('editor.changed-since-proof')).toHaveCount(0);
    await page.getByRole('button', { name: 'Prove it' }).click();

    await expect(page).toHaveURL(new RegExp(`/flows/${flowId}/proofs/proof_`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Proof of “${name}”`);
    const headline = page.getByTestId('proof.headline');
    await expect(headline).toHaveText('Proven: every check passed (5).', { timeout: 60_000 });
    const checks = page.getByTestId('proof.check');
    await expect(checks).toHaveCount(5);
    for (const title of ['Twice in a row', 'Ten at once', 'Stopped hard between the action and its record', 'A delivered webhook sent again', 'Keys checked on the samples']) {
      await expect(checks.filter({ hasText: title }).getByText('Passed', { exact: true })).toBeVisible();
    }
    // A sentence per side-effect step, and the test runs to open.
    await expect(checks.first().getByRole('listitem').filter({ hasText: 'Create invoice' }).first()).toBeVisible();
    await expect(page.getByTestId('proof.meta')).toContainText(/On the sample “.+”, started .+; done .+, after \d/);
    const run = checks.first().getByRole('link', { name: /^run 1/ });
    await expect(run).toHaveAttribute('href', /^\/runs\/run_/);
    await run.click();
    await expect(page).toHaveURL(/\/runs\/run_/);
    await page.goBack();
    await expect(headline).toHaveText('Proven: every check passed (5).');

    // The flow list: the live version has the draft's behaviour, so it is proven.
    await flowList.open();
    const badge = flowList.rows().filter({ hasText: name }).getByTestId('flow-list.proof');
    await expect(badge).toContainText(/^v1 proven on \S+ \S+/);

    // The Versions tab marks the live version proven.
    await editor.open(flowId);
    await page.getByRole('tab', { name: 'Versions' }).click();
    await expect(page.getByTestId('versions.item').first().getByTestId('versions.proven')).toHaveText(/^Proven on \S+ \S+$/);

    // A change to the draft after the proof is said beside Publish.
    await clickStep(editor.node('http.request'));
    await editor.keyField().fill('{{ trigger.body.order.id }}:invoice-again');
    await expect(editor.saveStatus()).toHaveText('Saved');
    const note = page.getByTestId('editor.changed-since-proof');
    await expect(note).toHaveText('Changed since the last proof');
    await note.click();
    await expect(page).toHaveURL(new RegExp(`/flows/${flowId}/proofs/proof_`));
  } finally {
    await trpcCall(page.request, 'flows.delete', { id: flowId });
  }
});

test('a flow whose draft was proven and then changed is badged so in the flow list', async ({ page, flowList }) => {
  test.setTimeout(60_000);
  const name = `Changed after proof ${Date.now()}`;
  const { id: flowId } = await trpcCall<{ id: string }>(page.request, 'gallery.use', { templateId: 'order-paid-invoice-receipt' });
  try {
    const flow = await trpcCall<{ draft: { nodes: Array<{ id: string; data: Record<string, unknown> }> } & Record<string, unknown> }>(page.request, 'flows.get', { id: flowId }, 'query');
    await trpcCall(page.request, 'flows.saveDraft', { id: flowId, document: { ...flow.draft, name } });
    const { proofId } = await trpcCall<{ proofId: string }>(page.request, 'proofs.start', { flowId });
    await expect.poll(async () => (await trpcCall<{ status: string }>(page.request, 'proofs.get', { proofId }, 'query')).status, { timeout: 40_000 }).not.toBe('running');
    await flowList.open();
    const badge = flowList.rows().filter({ hasText: name }).getByTestId('flow-list.proof');
    await expect(badge).toContainText('Draft proven');

    const invoice = flow.draft.nodes.find((node) => node.id === 'invoice')!;
    invoice.data.key = '{{ trigger.body.order.id }}:invoice-2';
    await trpcCall(page.request, 'flows.saveDraft', { id: flowId, document: { ...flow.draft, name } });
    await flowList.open();
    await expect(badge).toContainText('Changed since proof');
  } finally {
    await trpcCall(page.request, 'flows.delete', { id: flowId });
  }
});

test('Prove it proves on the sample the editor is using', async ({ page, editor }) => {
  test.setTimeout(90_000);
  const name = `Proven on a named sample ${Date.now()}`;
  const { id: flowId } = await trpcCall<{ id: string }>(page.request, 'gallery.use', { templateId: 'order-paid-invoice-receipt' });
  try {
    const flow = await trpcCall<{ draft: { sampleInput: { order: Record<string, unknown> } } & Record<string, unknown> }>(page.request, 'flows.get', { id: flowId }, 'query');
    const other = { ...flow.draft.sampleInput, id: 'evt_2', order: { ...flow.draft.sampleInput.order, id: '4418' } };
    await trpcCall(page.request, 'flows.saveDraft', { id: flowId, document: { ...flow.draft, name, samples: [{ name: 'order 4418', input: other }] } });
    await editor.open(flowId);
    await page.getByRole('tab', { name: 'Sample inputs' }).click();
    await page.getByRole('radio', { name: 'order 4418' }).check();
    await page.getByRole('button', { name: 'Prove it' }).click();
    await expect(page.getByTestId('proof.headline')).toHaveText('Proven: every check passed (5).', { timeout: 60_000 });
    await expect(page.getByTestId('proof.meta')).toContainText('On the sample “order 4418”');
    await expect(page.getByTestId('proof.check').filter({ hasText: 'Twice in a row' })).toContainText('4418:invoice');
  } finally {
    await trpcCall(page.request, 'flows.delete', { id: flowId });
  }
});
