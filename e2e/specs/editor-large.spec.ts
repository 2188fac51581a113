import { expect, test } from '../fixtures/index.ts';
import { seedFlow } from '../fixtures/api.ts';
import { largeFlowDocument } from '../bench/large-flow.ts';

test.use({ viewport: { width: 1600, height: 900 } });

const STEPS = 120;

test('a flow too big to read when fitted opens at its start and draws only what is in view', async ({ editor, page, request }) => {
  const document = largeFlowDocument(STEPS);
  // One step far from the start needs fixing, to be found from the Problems tab.
  const broken = document.nodes.find((node) => node.id === 's101')!;
  broken.data = { label: 'Call service 101', key: '{{ trigger.body.order.id }}:step-101', request: { method: 'POST' } };
  const flowId = await seedFlow(request, document);
  await editor.open(flowId);

  const step = (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
  await expect(step('s0')).toBeVisible();
  await expect(page.locator('.react-flow__minimap-node')).toHaveCount(STEPS);
  const drawn = await page.locator('.react-flow__node').count();
  expect(drawn).toBeGreaterThan(3);
  expect(drawn).toBeLessThan(STEPS / 2);
  // Read at full size, not shrunk to fit.
  await expect(page.locator('.react-flow__viewport')).toHaveAttribute('style', /scale\(1\)/);

  // A connection to a step not drawn yet ends where it ends once the step is drawn.
  // (Compared to within half a pixel: a step measured while zoomed far out is measured in
  // screen pixels, so its places come back with rounding noise.)
  const ends = async (edgeId: string) => {
    const path = await page.locator(`.react-flow__edge[data-id="${edgeId}"] path.react-flow__edge-path`).getAttribute('d');
    const numbers = (path ?? '').match(/-?\d+(\.\d+)?/g)!.map(Number);
    return [numbers[0]!, numbers[1]!, numbers.at(-2)!, numbers.at(-1)!];
  };
  await expect(step('s3')).toHaveCount(0);
  const estimated = await ends('e2');

  await page.getByRole('button', { name: 'Fit View' }).click();
  await expect(page.locator('.react-flow__node')).toHaveCount(STEPS);
  await expect(step('s3')).toHaveCount(1);
  const measured = await ends('e2');
  measured.forEach((value, index) => expect(Math.abs(value - estimated[index]!)).toBeLessThan(0.5));

  // Back at the start, the problem far away is one click from the Problems tab.
  await page.reload();
  await expect(step('s0')).toBeVisible();
  await expect(step('s101')).toHaveCount(0);
  await page.getByRole('tab', { name: 'Problems' }).click();
  await page.getByRole('button', { name: /Call service 101/ }).click();
  await expect(step('s101')).toBeInViewport();
  await expect(page.getByTestId('inspector').getByLabel('Label', { exact: true })).toHaveValue('Call service 101');
});
