/**
 * A run of a For each on the run page, at desktop and phone width: the loop's drawer says
 * how its items stand ("25 items — 23 done, 0 duplicates stopped, 2 failed") and lists the
 * items a page at a time, each with its own step, key and error; the page passes axe.
 *
 *   start (manual) ──► loop (for.each, continue with the rest) ──► after
 *                       └ send (http.request to a receiver on loopback)
 */
import { startReceiver, type Receiver } from '../../server/testing/receiver.ts';
import { loopFlow, loopInput } from '../../server/testing/loop-flows.ts';
import { seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { clickStep } from '../fixtures/canvas.ts';

let receiver: Receiver;

test.beforeAll(async () => {
  receiver = await startReceiver({ honoursKeys: true });
  // Items 4 and 17 are refused; the loop goes on with the rest.
  receiver.behave = (call) => (call.ref?.endsWith('-4') || call.ref?.endsWith('-17') ? { kind: 'status', status: 422 } : { kind: 'ok' });
});
test.afterAll(async () => {
  await receiver?.close();
});

for (const size of [{ name: 'desktop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }]) {
  test.describe(`a For each run at ${size.name} width`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('the loop shows its counts and opens to a paged list of items', async ({ runPage, page, request }) => {
      test.setTimeout(120_000);
      const stamp = `${size.name}${Date.now()}`;
      const flowId = await seedFlow(request, loopFlow(receiver.url, { name: `Line items ${stamp}`, onItemError: 'continue', concurrency: 5 }));
      await trpcCall(request, 'flows.publish', { id: flowId });
      const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: loopInput(stamp, 25) });
      await waitForRun(request, runId, ['succeeded']);

      await runPage.open(runId);
      // The step inside the loop stands for its items on the canvas: two of them failed.
      await expect(runPage.node('send')).toHaveAttribute('data-status', 'failed');
      await clickStep(runPage.node('loop'));
      const drawer = runPage.drawer();
      await expect(drawer.getByTestId('loop.summary')).toHaveText('25 items — 23 done, 0 duplicates stopped, 2 failed');
      const items = drawer.getByTestId('loop.items');
      await expect(items.getByRole('listitem').filter({ hasText: /^Item \d+:/ })).toHaveCount(20);
      await expect(items).toContainText('Item 4: Failed');
      await expect(items).toContainText(`${stamp}:${stamp}-3`);
      await expect(drawer.getByTestId('loop.range')).toHaveText('Items 1–20 of 25');

      await drawer.getByRole('button', { name: 'Next items' }).click();
      await expect(drawer.getByTestId('loop.range')).toHaveText('Items 21–25 of 25');
      await expect(items.getByRole('listitem').filter({ hasText: /^Item \d+:/ })).toHaveCount(5);
      await expect(drawer.getByRole('button', { name: 'Next items' })).toBeDisabled();
      await drawer.getByRole('button', { name: 'Previous items' }).click();
      await expect(items).toContainText('Item 17: Failed');

      const widths = await page.evaluate(() => ({ scroll: document.scrollingElement!.scrollWidth, client: document.scrollingElement!.clientWidth }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      expect(await seriousFindings(page)).toEqual([]);
    });
  });
}
