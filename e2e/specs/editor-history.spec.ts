import { expect, test } from '../fixtures/index.ts';
import { seedFlow } from '../fixtures/api.ts';
import { orderFlowDocument } from '../fixtures/flows.ts';
import { boxOf } from '../fixtures/geometry.ts';
import { clickStep } from '../fixtures/canvas.ts';

test.use({ viewport: { width: 1600, height: 900 } });

test('undo and redo of add, move, connect and delete', async ({ editor, page, request }) => {
  const flowId = await seedFlow(request, orderFlowDocument('History', { connected: false }));
  await editor.open(flowId);
  const hook = editor.node('trigger.webhook');
  const http = editor.node('http.request');
  const undo = page.getByRole('button', { name: 'Undo' });
  const redo = page.getByRole('button', { name: 'Redo' });
  await expect(undo).toBeDisabled();

  // Add (nothing selected, so the step lands on its own), with the buttons.
  await editor.paletteItem('Delay').click();
  await expect(editor.node('delay')).toHaveCount(1);
  await undo.click();
  await expect(editor.node('delay')).toHaveCount(0);
  await redo.click();
  await expect(editor.node('delay')).toHaveCount(1);

  // Move, with the keyboard shortcuts.
  await page.getByTestId('editor.canvas').click({ position: { x: 20, y: 20 } });
  const before = await boxOf(http);
  await editor.dragBy(http, 120, 90);
  const moved = await boxOf(http);
  expect(moved.x - before.x).toBeGreaterThan(60);
  await page.keyboard.press('Control+z');
  await expect.poll(async () => Math.round((await boxOf(http)).x)).toBe(Math.round(before.x));
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(async () => Math.round((await boxOf(http)).x)).toBe(Math.round(moved.x));

  // Connect.
  await editor.connect(hook, http);
  await expect(editor.edges()).toHaveCount(1);
  await page.keyboard.press('Control+z');
  await expect(editor.edges()).toHaveCount(0);
  await page.keyboard.press('Control+y');
  await expect(editor.edges()).toHaveCount(1);

  // Delete a step with the Delete key: its connection goes with it, and comes back with it.
  await http.click();
  await page.keyboard.press('Delete');
  await expect(http).toHaveCount(0);
  await expect(editor.edges()).toHaveCount(0);
  await undo.click();
  await expect(http).toHaveCount(1);
  await expect(editor.edges()).toHaveCount(1);
  await redo.click();
  await expect(http).toHaveCount(0);

  // Every change was saved along the way.
  await editor.waitSaved();
});

test('a condition connects through its Yes and No exits', async ({ editor, page, request }) => {
  const flowId = await seedFlow(request, orderFlowDocument('Branches', { connected: false }));
  await editor.open(flowId);
  await clickStep(editor.node('trigger.webhook'));
  await editor.paletteItem('Condition').click();
  const condition = editor.node('condition');
  await expect(condition).toHaveCount(1);
  await expect(editor.edges()).toHaveCount(1);

  await editor.connect(condition, editor.node('http.request'), 'false');
  await expect(editor.edges()).toHaveCount(2);
  await expect(page.locator('.react-flow__edge-text').filter({ hasText: 'No' })).toHaveCount(1);

  await condition.click();
  await page.getByTestId('inspector').getByLabel('Check this field').selectOption({ label: 'order.total (e.g. 120)' });
  await page.getByTestId('inspector').getByLabel('Condition', { exact: true }).selectOption('gt');
  await editor.field('Compare with').fill('100');
  await expect(page.getByTestId('condition.sentence')).toContainText('When order.total is more than 100');
  await editor.waitSaved();
});
