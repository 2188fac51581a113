/**
 * The default alerts page at phone width: a chat address that is not one is refused with
 * the reason and nothing is stored; a good one is saved and read back. A flow's own
 * alerts in the editor's Alerts tab, saved with its draft. An alert the chat refuses
 * shows on the run page and the runs page, and goes once the chat accepts it again.
 */
import AxeBuilder from '@axe-core/playwright';
import { startReceiver } from '../../server/testing/receiver.ts';
import { seedFlow, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';
import { ORDER_SAMPLE, orderFlowDocument } from '../fixtures/flows.ts';
import { expect, test } from '../fixtures/index.ts';

test.use({ viewport: { width: 390, height: 844 } });

test('default alerts are checked in plain words, saved, and read back', async ({ page }) => {
  await page.goto('/alerts');
  await expect(page.getByRole('heading', { level: 1, name: 'Default alerts' })).toBeVisible();
  const enabled = page.getByRole('checkbox', { name: 'Send alerts' });
  if (!(await enabled.isChecked())) await enabled.check();
  // Only refusals, so other flows' failing runs are not alerted while this test runs.
  await page.getByRole('checkbox', { name: 'a run fails' }).uncheck();
  await page.getByRole('checkbox', { name: 'a run needs review' }).uncheck();
  await page.getByLabel('Incoming webhook address').fill('hooks.slack.com/services/T0');
  await page.getByRole('button', { name: 'Save default alerts' }).click();
  await expect(page.getByRole('alert')).toContainText('"hooks.slack.com/services/T0" is not a web address');
  expect((await trpcCall<{ settings: unknown }>(page.request, 'alerts.defaults', undefined, 'query')).settings).toBeNull();

  await page.getByLabel('Incoming webhook address').fill('{{ secrets.SLACK_ALERTS_URL }}');
  await page.getByRole('button', { name: 'Save default alerts' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  await page.reload();
  await expect(page.getByLabel('Incoming webhook address')).toHaveValue('{{ secrets.SLACK_ALERTS_URL }}');
  await expect(page.getByRole('checkbox', { name: 'a run fails' })).not.toBeChecked();
  // Leave the shared server as the other tests expect it: no default alerts.
  await page.getByRole('checkbox', { name: 'Send alerts' }).uncheck();
  await page.getByRole('button', { name: 'Save default alerts' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
});

test.describe('on a wide screen', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("a flow's own alerts are set in the editor's Alerts tab and saved with the draft", async ({ page }) => {
    const flowId = await seedFlow(page.request, orderFlowDocument(`Alerted flow ${Date.now()}`));
    await page.goto(`/flows/${flowId}`);
    await page.getByRole('tab', { name: 'Alerts' }).click();
    await page.getByRole('radio', { name: 'Alerts of this flow' }).check();
    await page.getByLabel('Incoming webhook address').fill('https://chat.example.test/hooks/ops');
    await page.getByLabel('Key header (optional)').fill('Idempotency-Key');
    await expect.poll(async () => {
      const flow = await trpcCall<{ draft: { settings?: { alerts?: { chat?: { url: string; keyHeader?: string } } } } }>(page.request, 'flows.get', { id: flowId }, 'query');
      return flow.draft.settings?.alerts?.chat;
    }, { timeout: 10_000 }).toEqual({ url: 'https://chat.example.test/hooks/ops', keyHeader: 'Idempotency-Key' });
  });
});

test('an alert the chat refuses shows on the run and runs pages, and is sent again on request', async ({ page }) => {
  const chat = await startReceiver({ honoursKeys: true });
  chat.behave = () => ({ kind: 'status', status: 404 });
  try {
    const document = { ...orderFlowDocument(`Refused alert ${Date.now()}`), settings: { alerts: { chat: { url: `${chat.url}/alerts`, keyHeader: 'Idempotency-Key' } } } };
    const flowId = await seedFlow(page.request, document);
    await trpcCall(page.request, 'flows.publish', { id: flowId });
    const flow = await trpcCall<{ triggers: Array<{ hookId: string; kind: string }> }>(page.request, 'flows.get', { id: flowId }, 'query');
    const hookId = flow.triggers.find((trigger) => trigger.kind === 'trigger.webhook')!.hookId;
    const { runId } = await sendWebhook(page.request, hookId, { ...ORDER_SAMPLE, id: `evt_alert_${Date.now()}`, order: { ...ORDER_SAMPLE.order, id: `al-${Date.now()}` } });
    await waitForRun(page.request, runId, ['failed'], 60_000);

    // The first try is refused about a second after the run failed.
    await expect.poll(async () => (await trpcCall<unknown[]>(page.request, 'alerts.undelivered', { runId }, 'query')).length, { timeout: 15_000 }).toBe(1);
    await page.goto(`/runs/${runId}`);
    const banner = page.getByTestId('alerts.undelivered');
    await expect(banner).toContainText('1 alert could not be sent', { timeout: 15_000 });
    await expect(banner).toContainText('404');
    await expect(banner).toContainText('will be tried again');
    const findings = (await new AxeBuilder({ page }).include('[data-testid="alerts.undelivered"]').analyze()).violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(findings.map((violation) => violation.id)).toEqual([]);

    await page.goto('/runs');
    await expect(page.getByTestId('alerts.undelivered')).toContainText('could not be sent');
    chat.behave = () => ({ kind: 'ok' });
    await page.getByRole('button', { name: 'Send again now' }).click();
    await expect.poll(() => chat.effects.get(`${runId}:failed`) ?? 0, { timeout: 15_000 }).toBe(1);
    await expect(page.getByTestId('alerts.undelivered')).toHaveCount(0, { timeout: 20_000 });
  } finally {
    await chat.close();
  }
});
