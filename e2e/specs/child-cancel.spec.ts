/**
 * Cancelling a parent run on its page cancels the child run it waits for, at desktop and
 * phone width: the dialog says so first, the child's timeline says it was cancelled because the run that started it
 * was, its acting step is recorded, the step after it never runs, and the page passes axe.
 *
 *   parent: start ──► call (Run flow → child) ──► after
 *   child:  start ──► invoice (POST to a receiver on loopback that answers once the parent is cancelled) ──► after
 */
import { childFlow, parentFlow } from '../../server/testing/flow-run-flows.ts';
import { startReceiver, type Receiver } from '../../server/testing/receiver.ts';
import { seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { clickStep } from '../fixtures/canvas.ts';

let receiver: Receiver;

test.beforeAll(async () => {
  receiver = await startReceiver({ honoursKeys: true });
});
test.afterAll(async () => {
  await receiver?.close();
});

for (const size of [{ name: 'desktop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }]) {
  test.describe(`cancelling a parent run at ${size.name} width`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('cancels the child it waits for, whose timeline says why', async ({ runPage, page, request }) => {
      test.setTimeout(60_000);
      const stamp = `${size.name}${Date.now()}`;
      const childId = await seedFlow(request, childFlow(receiver.url, `Invoice ${stamp}`));
      await trpcCall(request, 'flows.publish', { id: childId });
      const parentId = await seedFlow(request, parentFlow(childId, { name: `Orders ${stamp}` }));
      await trpcCall(request, 'flows.publish', { id: parentId });
      // The child's invoice is created, and its answer held back until the parent has been
      // cancelled, however long the page takes to get there.
      let answerInvoice!: () => void;
      const cancelled = new Promise<void>((resolve) => (answerInvoice = resolve));
      receiver.behave = () => ({ kind: 'held', until: cancelled });
      const arrived = new Promise<void>((resolve) => (receiver.onCall = (call) => call.ref === `${stamp}:invoice` && resolve()));
      const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId: parentId, input: { order: { id: stamp, total: 3 } } });
      await arrived;
      await waitForRun(request, runId, ['waiting']);

      await runPage.open(runId);
      await runPage.button('Cancel run').click();
      const dialog = page.getByTestId('cancel.dialog');
      await expect(dialog).toContainText('The child runs it started that have not ended are cancelled too.');
      expect(await seriousFindings(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel run', exact: true }).click();
      await expect(dialog).toBeHidden();
      await runPage.waitForStatus('cancelled');
      answerInvoice();
      const parentSeq = (await trpcCall<{ run: { seq: number } }>(request, 'runs.get', { runId }, 'query')).run.seq;

      await clickStep(runPage.node('call'));
      const child = runPage.drawer().getByTestId('step-drawer.child');
      await expect(child).toContainText('cancelled');
      await child.getByRole('link').click();
      await runPage.waitForStatus('cancelled');
      await expect(runPage.entries(`Cancelled because run #${parentSeq} that started it was cancelled`).first()).toBeVisible();
      // Once the receiver answered, the acting step is recorded (a settled run's page shows it
      // when opened again); the step after it never runs.
      const childRunId = new URL(page.url()).pathname.split('/').at(-1)!;
      await expect.poll(async () => {
        const { events } = await trpcCall<{ events: { data: { finished?: string } | null }[] }>(request, 'runs.timeline', { runId: childRunId, limit: 100 }, 'query');
        return events.some((event) => event.data?.finished === 'succeeded');
      }, { timeout: 20_000 }).toBe(true);
      await page.reload();
      await expect(runPage.entries('“Create invoice” was acting; it finished and was recorded. 1 step did not run.')).toHaveCount(1);
      await expect(runPage.node('invoice')).toHaveAttribute('data-status', 'succeeded');
      expect(receiver.calls.filter((call) => call.ref === `${stamp}:invoice`)).toHaveLength(1);

      const widths = await page.evaluate(() => ({ scroll: document.scrollingElement!.scrollWidth, client: document.scrollingElement!.clientWidth }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      expect(await seriousFindings(page)).toEqual([]);
    });
  });
}
