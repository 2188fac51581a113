/**
 * An operator on a phone (390 × 844): opens a failed run, reads its timeline, reruns or
 * replays it, resolves a step whose outcome is unknown, and finds runs, flows and
 * deliveries in lists that are cards. No page scrolls sideways.
 *
 *   shop (webhook) ──▶ invoice (payments) ──▶ receipt (email)
 */
import { expect, test } from '../fixtures/index.ts';
import { fitsWidth } from '../fixtures/a11y.ts';
import type { Page } from '@playwright/test';
import { configureSandbox, resetSandbox, sandboxEffects, seedTemplate, sendWebhook, waitForRun } from '../fixtures/api.ts';
import { clickStep } from '../fixtures/canvas.ts';

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

const TEMPLATE = 'order-paid-invoice-receipt';
const TEMPLATE_NAME = 'Order paid → invoice → receipt email';

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 120, currency: 'EUR', customer: { email: 'ada@example.com', name: 'Ada' } } };
}

/**
 * Every button and link that carries an aria-label says in it the words it shows, so
 * people who see the page and people who hear it name the control alike.
 */
async function expectNamesContainVisibleText(page: Page) {
  const mismatches = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('button[aria-label], a[aria-label], [role="button"][aria-label], [role="link"][aria-label]')]
      .map((element) => ({ label: element.getAttribute('aria-label') ?? '', text: element.innerText.replace(/\s+/g, ' ').trim() }))
      // Icon-only controls (×, +) have no words to repeat.
      .filter(({ label, text }) => /[a-z]{2}/i.test(text) && !label.toLowerCase().includes(text.toLowerCase())),
  );
  expect(mismatches).toEqual([]);
}

// A script error blanks the page; no test passes over one.
let pageErrors: string[] = [];

test.beforeEach(async ({ request, page }) => {
  await resetSandbox(request);
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
});

test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

test('a failed run opens on a phone: header, timeline rows, Rerun and Replay all work', async ({ runPage, page, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (phone rerun)');
  await configureSandbox(request, 'payments', { failureRate: 1 });
  const { runId } = await sendWebhook(request, hookId!, order('evt_phone_rerun', '8101'));
  await waitForRun(request, runId, ['failed']);

  await runPage.open(runId);
  await runPage.waitForStatus('failed');
  await expect(runPage.entries()).not.toHaveCount(0);
  await fitsWidth(page);
  await expectNamesContainVisibleText(page);

  // The heading reads on one line, not one word per line.
  const heading = await page.getByRole('heading', { level: 1 }).boundingBox();
  expect(heading!.height).toBeLessThan(50);

  // The timeline has room for its rows, and they can be read.
  const viewport = runPage.timelineViewport();
  await viewport.scrollIntoViewIfNeeded();
  expect((await viewport.boundingBox())!.height).toBeGreaterThan(300);
  await expect(runPage.entriesOfType('webhook.received')).toBeInViewport();
  await expect(runPage.entriesOfType('webhook.received')).toContainText('evt_phone_rerun');
  await viewport.evaluate((element) => { element.scrollTop = element.scrollHeight; });
  await expect(runPage.entriesOfType('run.failed')).toBeInViewport();

  // A step's details open on the phone too.
  await clickStep(runPage.node('invoice'));
  await expect(runPage.drawer()).toContainText('Create invoice');
  await expect(runPage.drawer().getByRole('heading', { name: 'Create invoice' })).toBeInViewport();
  await fitsWidth(page);
  await runPage.drawer().getByRole('button', { name: 'Close step details' }).click();

  await configureSandbox(request, 'payments', { failureRate: 0 });
  await runPage.button('Rerun').click();
  await expect(runPage.rerunDialog().getByTestId('rerun.preview')).toContainText('Create invoice');
  await fitsWidth(page);
  await runPage.button('Rerun now').click();
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('run.succeeded')).toBeInViewport();
  expect(await sandboxEffects(request, 'payments')).toBe(1);

  await runPage.button('Replay').click();
  await expect(page).not.toHaveURL(new RegExp(runId));
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('step.duplicate')).toHaveCount(2);
  await fitsWidth(page);
  expect(await sandboxEffects(request, 'payments')).toBe(1);
});

for (const [choice, effects] of [['It happened', 1], ['It did not happen — do it now', 2], ['Skip', 1]] as const) {
  test(`a step whose outcome is unknown is resolved on a phone with "${choice}"`, async ({ runPage, page, request }) => {
    const { hookId } = await seedTemplate(request, TEMPLATE, `Invoices (phone ${choice})`);
    await configureSandbox(request, 'email', { dropAnswer: true });
    const { runId } = await sendWebhook(request, hookId!, order(`evt_phone_${effects}_${choice.length}`, `82${choice.length}`));
    await waitForRun(request, runId, ['needs_review']);

    await runPage.open(runId);
    await runPage.waitForStatus('needs_review');
    await fitsWidth(page);
    for (const name of ['It happened', 'It did not happen — do it now', 'Skip']) {
      const button = runPage.button(name);
      await button.scrollIntoViewIfNeeded();
      await expect(button).toBeInViewport();
      const box = (await button.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }

    await configureSandbox(request, 'email', { dropAnswer: false });
    await runPage.button(choice).tap();
    await runPage.waitForStatus('succeeded');
    await expect(runPage.entries('Decision recorded')).toBeVisible();
    expect(await sandboxEffects(request, 'email')).toBe(effects);
  });
}

test('the runs list is cards on a phone; a card opens its run', async ({ runHistory, page, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (phone list with a long name)');
  const { runId } = await sendWebhook(request, hookId!, order('evt_phone_list', '8301'));
  await waitForRun(request, runId, ['succeeded']);

  await runHistory.open();
  await expect(page.getByRole('table')).toHaveCount(0);
  const card = runHistory.row(runId);
  await expect(card).toBeVisible();
  await expect(card).toContainText('Invoices (phone list with a long name)');
  await expect(card).toContainText('succeeded');
  await expect(card).toContainText('Webhook event evt_phone_list');
  // What is kept and for how long (ONCEFLOW_KEY_TTL, ONCEFLOW_RETENTION), under the list.
  const keeping = page.getByTestId('runs.keeping');
  await expect(keeping).toContainText('Keys are kept for 30 days after their work is done');
  await expect(keeping).toContainText('Runs are kept until you set a retention');
  await expect(keeping).toContainText(/The oldest kept run is #\d+, from /);
  await fitsWidth(page);
  await expectNamesContainVisibleText(page);

  await page.getByLabel('Status').selectOption('succeeded');
  await expect(card).toBeVisible();
  await fitsWidth(page);

  await card.getByRole('link', { name: /^Run #\d+$/ }).tap();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await fitsWidth(page);
});

test('the flow list is cards on a phone, and a template button is named by what it says', async ({ flowList, page, request }) => {
  const { flowId } = await seedTemplate(request, TEMPLATE, 'Invoices (phone flows)');
  await flowList.open();
  await expect(page.getByRole('table')).toHaveCount(0);
  const card = flowList.rows().filter({ hasText: 'Invoices (phone flows)' });
  await expect(card).toBeVisible();
  await expect(card.getByTestId('flow-list.runs-today')).toHaveText('0');
  const changed = await flowList.changedTimes(card);
  expect(changed.shown).toBe(changed.expected);
  expect(Math.abs(Date.parse(changed.moment!) - Date.now())).toBeLessThan(60_000);
  await fitsWidth(page);
  await expectNamesContainVisibleText(page);

  // The visible words are the start of the accessible name, never replaced by other words.
  const use = flowList.template(TEMPLATE_NAME).getByRole('button', { name: 'Use this template', exact: true });
  await expect(use).toBeVisible();
  await expect(use).toHaveText('Use this template');
  await expect(use).not.toHaveAttribute('aria-label');
  // The link shows "Runs"; its name goes on with the flow's name, which only screen readers need.
  await expect(card.getByRole('link', { name: 'Runs of Invoices (phone flows)' })).toContainText('Runs');

  await card.getByRole('link', { name: 'Runs of Invoices (phone flows)' }).tap();
  await expect(page).toHaveURL(new RegExp(`/runs\\?flow=${flowId}`));
  await fitsWidth(page);
});

test('the inbox is cards on a phone, and a delivery is replayed from it', async ({ inbox, page, request }) => {
  const { flowId, hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (phone inbox)');
  const first = await sendWebhook(request, hookId!, order('evt_phone_inbox', '8401'));
  await sendWebhook(request, hookId!, order('evt_phone_inbox', '8401'));
  await waitForRun(request, first.runId, ['succeeded']);

  await inbox.open(flowId);
  await expect(page.getByRole('table')).toHaveCount(0);
  await expect(inbox.rows()).toHaveCount(1);
  await expect(inbox.rows().first()).toContainText('evt_phone_inbox');
  await expect(inbox.rows().first()).toContainText('duplicate ×1');
  await fitsWidth(page);
  await expectNamesContainVisibleText(page);

  await inbox.rows().first().getByRole('button', { name: 'Replay', exact: true }).tap();
  await expect(page).toHaveURL(/\/runs\/run_/);
  await expect(page).not.toHaveURL(new RegExp(first.runId));
  await expect(page.getByTestId('run.status')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
  expect(await sandboxEffects(request, 'payments')).toBe(1);
});
