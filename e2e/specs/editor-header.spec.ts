/**
 * The editor's header and its honesty: whether the draft is live, a sample input that is
 * not JSON yet, a fixable import, problems named in the form's words, and the editor at
 * phone width.
 */
import type { Page } from '@playwright/test';
import { seedFlow, trpcCall } from '../fixtures/api.ts';
import { boxOf } from '../fixtures/geometry.ts';
import { orderFlowDocument, ORDER_SAMPLE } from '../fixtures/flows.ts';
import { expect, test } from '../fixtures/index.ts';
import { clickStep } from '../fixtures/canvas.ts';

const liveStatus = (page: Page) => page.getByTestId('editor.live-status');
const problemsButton = (page: Page) => page.getByTestId('editor.problems');

test('the header says whether the draft differs from the live version', async ({ editor, page }) => {
  const flowId = await seedFlow(page.request, orderFlowDocument('Header live state'));
  await editor.open(flowId);
  await expect(liveStatus(page)).toHaveText('Not published yet');
  await expect(problemsButton(page)).toHaveText('Problems: none');

  await editor.publish();
  await expect(editor.notice()).toContainText('Published version 1');
  await expect(liveStatus(page)).toHaveText('Live is up to date');

  // Moving a step is tidying, not a change to what runs.
  await editor.dragBy(editor.node('http.request'), 60, 80);
  await editor.waitSaved();
  await expect(liveStatus(page)).toHaveText('Live is up to date');

  await clickStep(editor.node('http.request'));
  await editor.field('Label').fill('Create the invoice');
  await expect(liveStatus(page)).toHaveText('Draft differs from v1');
  await editor.waitSaved();
  await page.reload();
  await expect(liveStatus(page)).toHaveText('Draft differs from v1');

  await editor.publish();
  await expect(editor.notice()).toContainText('Published version 2');
  await expect(liveStatus(page)).toHaveText('Live is up to date');
  await expect(problemsButton(page)).toHaveText('Problems: none');
  await problemsButton(page).click();
  await expect(page.getByRole('tab', { name: 'Problems' })).toHaveAttribute('aria-selected', 'true');
});

test('a sample input that is not JSON points at the place, is not called saved, and blocks Run', async ({ editor, page }) => {
  const flowId = await seedFlow(page.request, orderFlowDocument('Broken sample'));
  await editor.open(flowId);
  await page.getByRole('tab', { name: 'Sample input' }).click();
  const sample = page.getByRole('textbox', { name: 'Sample input' });

  await sample.fill('{\n  "id": "evt_2"\n  "order": { "id": "77" }\n}');
  await expect(page.getByTestId('sample-input.error')).toContainText('Not valid JSON at line 3, column 3: a comma or a closing } should come before');
  await expect(editor.saveStatus()).toHaveText('Sample input not saved');

  // Another tab and back: the typed text and its mistake are still there.
  await page.getByRole('tab', { name: 'Problems' }).click();
  await page.getByRole('tab', { name: 'Sample input' }).click();
  await expect(sample).toHaveValue('{\n  "id": "evt_2"\n  "order": { "id": "77" }\n}');

  await page.getByRole('button', { name: 'Test run' }).click();
  await expect(editor.notice()).toContainText('The sample input is not valid JSON (line 3, column 3');
  await expect(page.getByRole('tab', { name: 'Sample input' })).toHaveAttribute('aria-selected', 'true');
  await expect(page).toHaveURL(new RegExp(`/flows/${flowId}$`));
  const flow = await trpcCall<{ draft: { sampleInput: unknown }; versions: unknown[] }>(page.request, 'flows.get', { id: flowId }, 'query');
  expect(flow.draft.sampleInput).toEqual(ORDER_SAMPLE);
  expect(flow.versions).toEqual([]);

  await page.getByRole('button', { name: 'Go to line 3, column 3' }).click();
  await expect(sample).toBeFocused();
  expect(await sample.evaluate((box: HTMLTextAreaElement) => box.selectionStart)).toBe('{\n  "id": "evt_2"\n  '.length);

  await sample.fill('{\n  "id": "evt_2",\n  "order": { "id": "77" }\n}');
  await expect(page.getByTestId('sample-input.error')).toHaveCount(0);
  await editor.waitSaved();
  await page.getByRole('button', { name: 'Test run' }).click();
  await expect(page).toHaveURL(/\/runs\/run_/);
});

test('a file the editor can fix imports as a draft with its problems listed, and will not publish', async ({ editor, flowList, page }) => {
  await flowList.open();
  await flowList.importFile('needs-fixing.json', {
    format: 'onceflow/v1',
    name: 'Imported with problems',
    sampleInput: ORDER_SAMPLE,
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { label: 'Shop webhook', eventId: '{{ trigger.body.id }}' } },
      { id: 'charge', type: 'http.request', position: { x: 340, y: 0 }, data: { label: 'Charge card', sideEffect: true, request: { method: 'POST', url: 'http://127.0.0.1:9/charge' } } },
    ],
    edges: [
      { id: 'e1', source: 'hook', target: 'charge' },
      { id: 'e2', source: 'charge', target: 'ghost' },
    ],
  });
  await expect(page).toHaveURL(/\/flows\/flow_[^/?]+\?show=problems$/);
  await expect(page.getByRole('tab', { name: /Problems/ })).toHaveAttribute('aria-selected', 'true');
  const problems = page.getByTestId('problems.list').getByRole('listitem');
  await expect(problems).toHaveCount(2);
  await expect(problems.filter({ hasText: 'Charge card' })).toContainText('needs an idempotency key');
  await expect(problems.filter({ hasText: 'e2' })).toContainText('leads to a step "ghost" that does not exist');
  await expect(problemsButton(page)).toHaveText('Problems: 2 to fix');
  await expect(liveStatus(page)).toHaveText('Not published yet');

  await editor.publish();
  await expect(editor.notice()).toContainText('This flow cannot be published yet');
  const flowId = new URL(page.url()).pathname.split('/').pop() as string;
  expect(await trpcCall<unknown[]>(page.request, 'flows.versions', { id: flowId }, 'query')).toEqual([]);
});

test('a file that cannot be opened is refused in one sentence, and nothing is created', async ({ flowList, page }) => {
  await flowList.open();
  const before = await trpcCall<unknown[]>(page.request, 'flows.list', undefined, 'query');
  await flowList.importFile('future.json', { ...orderFlowDocument('From the future'), format: 'onceflow/v7' });
  await expect(page.getByTestId('import.refusal')).toHaveText(/^This flow was made by a newer Onceflow \(format onceflow\/v7\)/);
  await expect(page).toHaveURL(/\/$/);
  expect(await trpcCall<unknown[]>(page.request, 'flows.list', undefined, 'query')).toHaveLength(before.length);
});

/*
 *   start ──► check ──(Yes)──► note      (80 px apart, as click-to-add places steps)
 */
const conditionFlow = {
  format: 'onceflow/v1',
  name: 'Big order check',
  sampleInput: ORDER_SAMPLE,
  nodes: [
    { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Start' } },
    { id: 'check', type: 'condition', position: { x: 320, y: 0 }, data: { label: 'Big order?', left: '{{ trigger.body.order.total }}', op: 'gt' } },
    { id: 'note', type: 'transform', position: { x: 640, y: 0 }, data: { label: 'Note it', outputs: { big: 'yes' } } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'check' },
    { id: 'e2', source: 'check', target: 'note', sourceHandle: 'true' },
  ],
};

test('a condition names its missing field in the form\'s words, and its Yes tag stays clear of the connection\'s label', async ({ editor, page }) => {
  const flowId = await seedFlow(page.request, conditionFlow);
  await editor.open(flowId);
  const check = editor.node('condition');
  await check.click();
  const inspector = page.getByTestId('inspector');
  await expect(inspector.getByRole('note', { name: 'What needs fixing in this step' })).toContainText('Needs a value to compare with ("Compare with")');
  await expect(inspector).not.toContainText('("right")');
  await expect(check.getByTestId('node.problem')).toHaveText('Needs a value to compare with ("Compare with").');

  const tag = await boxOf(check.locator('.handle-tag--true'));
  const node = await boxOf(check);
  const label = await boxOf(page.locator('.react-flow__edge').filter({ hasText: 'Yes' }).locator('.react-flow__edge-text'));
  expect(tag.x + tag.width).toBeLessThanOrEqual(node.x + node.width);
  const overlap = tag.x < label.x + label.width && label.x < tag.x + tag.width && tag.y < label.y + label.height && label.y < tag.y + tag.height;
  expect(overlap, `Yes tag ${JSON.stringify(tag)} and edge label ${JSON.stringify(label)}`).toBe(false);
});

test('at phone width the editor opens read-only, without sideways scroll', async ({ editor, page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const flowId = await seedFlow(page.request, conditionFlow);
  await editor.open(flowId);
  await expect(page.getByTestId('editor.read-only')).toContainText('Editing needs a larger screen');
  await expect(page.getByRole('button', { name: 'Publish', exact: true })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Test run' })).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Steps you can add' })).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Flow name' })).not.toBeEditable();

  // A step can be opened and read, not changed or moved. (The flow is too wide to read
  // fitted to a phone, so it opens at its start: the trigger is in view.)
  const start = editor.node('trigger.manual');
  const placed = () => page.locator('.react-flow__node[data-id="start"]').evaluate((node: HTMLElement) => node.style.transform);
  const before = await placed();
  await editor.dragBy(start, 40, 60);
  expect(await placed()).toBe(before);
  await start.click();
  await expect(editor.field('Label')).toHaveValue('Start');
  await expect(editor.field('Label')).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete step' })).toHaveCount(0);
  await page.getByRole('tab', { name: 'Sample input' }).click();
  await expect(page.getByRole('textbox', { name: 'Sample input' })).not.toBeEditable();

  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.view);
  const flow = await trpcCall<{ draft: { nodes: Array<{ id: string; position: unknown }> } }>(page.request, 'flows.get', { id: flowId }, 'query');
  expect(flow.draft.nodes.find((node) => node.id === 'start')?.position).toEqual({ x: 0, y: 0 });
});

test('at any width the header keeps each button on one line, moving the actions to a row of their own when they do not fit', async ({ editor, page }) => {
  const flowId = await seedFlow(page.request, orderFlowDocument('A flow whose name is long enough to need the room it is given'));
  await editor.open(flowId);
  const toolbar = page.getByRole('toolbar', { name: 'Flow' });
  for (const width of [800, 1024, 1280, 1440, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    // Export's one word cannot wrap: a button whose words took a second line would be half as tall again.
    const exportHeight = (await boxOf(toolbar.getByRole('button', { name: 'Export' }))).height;
    for (const name of ['Pause', /^Problems/, 'Publish', 'Prove it', 'Test run', 'Real services…']) {
      const box = await boxOf(toolbar.getByRole('button', { name }));
      expect(box.height, `${String(name)} at ${width} px`).toBeLessThan(exportHeight * 1.4);
      expect(box.x + box.width, `${String(name)} at ${width} px`).toBeLessThanOrEqual(width);
    }
    // The name keeps a readable width wherever the actions go.
    expect((await boxOf(page.getByRole('textbox', { name: 'Flow name' }))).width, `the name at ${width} px`).toBeGreaterThanOrEqual(150);
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
    expect(widths.scroll, `at ${width} px`).toBeLessThanOrEqual(widths.view);
  }
});
