/**
 * A flow that runs another, at desktop and phone width: the parent's Run flow step opens
 * its child run, the child says which run and step started it, the editor's form names
 * the flow it runs, and every page passes axe.
 *
 *   parent: start ──► call (Run flow → child) ──► after
 *   child:  start ──► invoice (POST to a receiver on loopback) ──► after
 */
import { childFlow, parentFlow } from '../../server/testing/flow-run-flows.ts';
import { startReceiver, type Receiver } from '../../server/testing/receiver.ts';
import { seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings, fitsWidth } from '../fixtures/a11y.ts';
import { clickStep } from '../fixtures/canvas.ts';

let receiver: Receiver;

test.beforeAll(async () => {
  receiver = await startReceiver({ honoursKeys: true });
});
test.afterAll(async () => {
  await receiver?.close();
});

for (const size of [{ name: 'desktop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }]) {
  test.describe(`a flow that runs another at ${size.name} width`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('the parent step opens its child run, which links back; the editor names the flow it runs', async ({ runPage, editor, page, request }) => {
      test.setTimeout(90_000);
      const stamp = `${size.name}${Date.now()}`;
      const childId = await seedFlow(request, childFlow(receiver.url, `Invoice ${stamp}`));
      await trpcCall(request, 'flows.publish', { id: childId });
      const parentId = await seedFlow(request, parentFlow(childId, { name: `Orders ${stamp}` }));
      await trpcCall(request, 'flows.publish', { id: parentId });
      const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId: parentId, input: { order: { id: stamp, total: 3 } } });
      await waitForRun(request, runId, ['succeeded']);

      await runPage.open(runId);
      await clickStep(runPage.node('call'));
      const child = runPage.drawer().getByTestId('step-drawer.child');
      await expect(child).toContainText(`Invoice ${stamp} run #`);
      await expect(child).toContainText('succeeded');
      await child.getByRole('link').click();

      await expect(page.getByTestId('run.parent')).toContainText(`Started by Orders ${stamp} run #`);
      await expect(page.getByTestId('run.parent')).toContainText('step “Bill the order”');
      await expect(page.getByTestId('run.child-badge')).toBeVisible();
      await fitsWidth(page);
      expect(await seriousFindings(page)).toEqual([]);
      await page.getByTestId('run.parent').getByRole('link').click();
      await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));

      await editor.open(parentId);
      await clickStep(editor.node('flow.run'));
      await expect(editor.field('Flow to run')).toHaveValue(childId);
      await expect(editor.field('Flow to run').locator('option:checked')).toHaveText(`Invoice ${stamp} (v1)`);
      await fitsWidth(page);
      expect(await seriousFindings(page)).toEqual([]);
    });
  });
}

test('the palette adds a Run flow step, which asks for the flow to run and a key', async ({ editor, request }) => {
  const flowId = await seedFlow(request, { format: 'onceflow/v1', name: `Empty ${Date.now()}`, sampleInput: {}, nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Start' } }], edges: [] });
  await editor.open(flowId);
  await clickStep(editor.node('trigger.manual'));
  await editor.paletteItem('Run flow').click();
  await expect(editor.node('flow.run')).toBeVisible();
  await expect(editor.field('Flow to run')).toBeVisible();
  await expect(editor.keyField()).toBeVisible();
  await expect(editor.sideEffectSwitch()).toHaveCount(0);
});
