/**
 * The flow's Settings tab: "If a run fails, try it again" chosen in the editor is saved in
 * the flow's document, and a delay that is not a length of time is named under the field.
 * On a phone (where the editor only reads) the setting shows, within the screen. With axe.
 */
import type { Page } from '@playwright/test';
import { seedFlow, trpcCall } from '../fixtures/api.ts';
import { orderFlowDocument } from '../fixtures/flows.ts';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';

const savedSettings = async (page: Page, flowId: string) =>
  (await trpcCall<{ draft: { settings?: unknown } }>(page.request, 'flows.get', { id: flowId }, 'query')).draft.settings;

test.describe('at desktop width', () => {
  test.use({ viewport: { width: 1400, height: 900 } });

  test('sets "try failed runs again" and shows a wrong delay under its field', async ({ editor, page }) => {
    test.setTimeout(60_000);
    const flowId = await seedFlow(page.request, orderFlowDocument(`Retry later ${Date.now()}`));
    await editor.open(flowId);
    await page.getByRole('tab', { name: 'Settings' }).click();
    const choice = page.getByRole('combobox', { name: 'If a run fails' });
    await expect(choice).toHaveValue('off');
    await choice.selectOption('standard');
    await expect.poll(() => savedSettings(page, flowId), { timeout: 10_000 }).toEqual({ retryFailedRuns: ['1m', '10m', '1h'] });

    await choice.selectOption('custom');
    const delays = page.getByRole('textbox', { name: 'Delays before each try' });
    await delays.fill('5m, soon');
    await expect(page.getByText('Try failed runs again: "soon" is not a length of time.')).toBeVisible({ timeout: 10_000 });
    await delays.fill('5m, 2h');
    await expect.poll(() => savedSettings(page, flowId), { timeout: 10_000 }).toEqual({ retryFailedRuns: ['5m', '2h'] });
    await expect(page.getByText('is not a length of time')).toHaveCount(0);
    expect(await seriousFindings(page, { within: '[data-testid="flow-settings"]', bestPractice: false })).toEqual([]);
    await trpcCall(page.request, 'flows.delete', { id: flowId });
  });
});

test.describe('at phone width', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('shows the setting, read only, within the screen', async ({ editor, page }) => {
    test.setTimeout(60_000);
    const flowId = await seedFlow(page.request, { ...orderFlowDocument(`Retry later phone ${Date.now()}`), settings: { retryFailedRuns: ['5m', '2h'] } });
    await editor.open(flowId);
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect(page.getByRole('combobox', { name: 'If a run fails' })).toHaveValue('custom');
    await expect(page.getByRole('textbox', { name: 'Delays before each try' })).toHaveValue('5m, 2h');
    await expect(page.getByRole('textbox', { name: 'Delays before each try' })).toBeDisabled();
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.view);
    expect(await seriousFindings(page, { within: '[data-testid="flow-settings"]', bestPractice: false })).toEqual([]);
    await trpcCall(page.request, 'flows.delete', { id: flowId });
  });
});
