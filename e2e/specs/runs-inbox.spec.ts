/** The webhook inbox, the run history with its filters and bulk rerun, and the flow list's counts. */
import { expect, test } from '../fixtures/index.ts';
import { configureSandbox, resetSandbox, sandboxEffects, seedFlow, seedTemplate, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';

test.use({ viewport: { width: 1600, height: 900 } });

const TEMPLATE = 'order-paid-invoice-receipt';

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 80, currency: 'EUR', customer: { email: 'bo@example.com', name: 'Bo' } } };
}

test.beforeEach(async ({ request }) => {
  await resetSandbox(request);
});

test('the same event sent three times makes one run; the inbox says duplicate ×2 and the timeline shows the repeats', async ({ inbox, runPage, page, request }) => {
  const { flowId, hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (repeated event)');
  const first = await sendWebhook(request, hookId!, order('evt_91', '7501'));
  const second = await sendWebhook(request, hookId!, order('evt_91', '7501'));
  const third = await sendWebhook(request, hookId!, order('evt_91', '7501'));
  expect(second).toEqual({ duplicate: true, runId: first.runId });
  expect(third).toEqual({ duplicate: true, runId: first.runId });
  await waitForRun(request, first.runId, ['succeeded']);

  await inbox.open(flowId);
  await expect(inbox.rows()).toHaveCount(1);
  await expect(inbox.rows().first()).toContainText('evt_91');
  await expect(inbox.rows().first()).toContainText('duplicate ×2');

  await inbox.rows().first().getByRole('link', { name: 'Open run' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${first.runId}$`));
  const repeats = runPage.entriesOfType('webhook.duplicate');
  await expect(repeats).toHaveCount(2);
  await expect(repeats.nth(0)).toContainText('Delivery repeated');
  await expect(repeats.nth(0)).toContainText('sent event evt_91 again (2nd time)');
  await expect(repeats.nth(1)).toContainText('sent event evt_91 again (3rd time)');
  expect(await sandboxEffects(request, 'payments')).toBe(1);

  // Replay from the inbox: a new run whose side effects are stopped as duplicates.
  await inbox.open(flowId);
  await inbox.rows().first().getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  await expect(page).not.toHaveURL(new RegExp(first.runId));
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('step.duplicate')).toHaveCount(2);
  expect(await sandboxEffects(request, 'payments')).toBe(1);
  expect(await sandboxEffects(request, 'email')).toBe(1);
});

test('a repeat sent while a waiting run\'s page is open shows at once', async ({ runPage, page, request }) => {
  const flowId = await seedFlow(request, {
    format: 'onceflow/v1', name: 'Webhook, then wait (watched repeat)', sampleInput: { id: 'evt_1' },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'wait', type: 'delay', position: { x: 240, y: 0 }, data: { for: '5m' } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'wait' }],
  });
  await trpcCall(request, 'flows.publish', { id: flowId });
  const { triggers } = await trpcCall<{ triggers: { hookId: string }[] }>(request, 'flows.get', { id: flowId }, 'query');
  const { runId } = await sendWebhook(request, triggers[0]!.hookId, { id: 'evt_watched' });
  await runPage.open(runId);
  await runPage.waitForStatus('waiting');
  await expect(page.getByText(/repeated deliver/)).toHaveCount(0);

  expect(await sendWebhook(request, triggers[0]!.hookId, { id: 'evt_watched' })).toEqual({ duplicate: true, runId });
  // A repeat writes no timeline event; the page learns of it from the watch, with no reload.
  await expect(runPage.entriesOfType('webhook.duplicate')).toHaveCount(1);
  await expect(runPage.entriesOfType('webhook.duplicate')).toContainText('sent event evt_watched again (2nd time)');
  await expect(page.getByText('1 repeated delivery ignored')).toBeVisible();
  await runPage.waitForStatus('waiting');
  await trpcCall(request, 'runs.cancel', { runId });
});

test('the history filters failed runs of a flow and reruns them all after a summed preview', async ({ runHistory, flowList, page, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (bulk rerun)');
  await configureSandbox(request, 'payments', { failureRate: 1 });
  const runs = [await sendWebhook(request, hookId!, order('evt_bulk_1', '7601')), await sendWebhook(request, hookId!, order('evt_bulk_2', '7602'))];
  for (const { runId } of runs) await waitForRun(request, runId, ['failed']);

  await flowList.open();
  const flowRow = flowList.rows().filter({ hasText: 'Invoices (bulk rerun)' });
  await expect(flowRow.getByTestId('flow-list.runs-today')).toHaveText('2');
  await expect(flowRow.getByTestId('flow-list.failures')).toHaveText('2');
  await flowRow.getByRole('link', { name: 'Runs of Invoices (bulk rerun)' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Runs of “Invoices (bulk rerun)”');
  await expect(runHistory.rows()).toHaveCount(2);

  // Search by event id.
  await page.getByLabel('Search runs').fill('evt_bulk_2');
  await expect(runHistory.rows()).toHaveCount(1);
  await expect(runHistory.rows().first()).toContainText('evt_bulk_2');
  await page.getByLabel('Search runs').fill('');
  await expect(runHistory.rows()).toHaveCount(2);

  await page.getByLabel('Status').selectOption('failed');
  await expect(runHistory.rows()).toHaveCount(2);
  await configureSandbox(request, 'payments', { failureRate: 0 });
  await page.getByRole('button', { name: 'Rerun all failed runs…' }).click();
  // The shortcut opens Recover… with this flow's failed runs chosen.
  const dialog = page.getByTestId('recover.dialog');
  await expect(dialog).toContainText('Each of the 2 runs continues as a new attempt');
  await expect(dialog.getByRole('list', { name: 'What the rerun will do' })).toContainText('4 side effects will act');
  await dialog.getByRole('button', { name: 'Rerun 2 runs' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Done: all 2 runs handled. They run now like any other run.');
  // The rerun empties the list of failed runs behind the dialog; the dialog stays to be read.
  await expect(runHistory.rows()).toHaveCount(0);
  await expect(dialog.getByRole('status')).toHaveText('Done: all 2 runs handled. They run now like any other run.');
  await dialog.getByRole('button', { name: 'Close' }).click();

  for (const { runId } of runs) await waitForRun(request, runId, ['succeeded']);
  await expect(runHistory.rows()).toHaveCount(0);
  await page.getByLabel('Status').selectOption('');
  await expect(runHistory.rows()).toHaveCount(2);
  await expect(runHistory.rows().first()).toContainText('rerun, attempt 2');
  expect(await sandboxEffects(request, 'payments')).toBe(2);

  // Back on the flow list, the failures of today are gone.
  await flowList.open();
  await expect(flowRow.getByTestId('flow-list.failures')).toHaveText('0');
  await expect(flowRow.getByTestId('flow-list.runs-today')).toHaveText('2');
});

test("a run page's header keeps the run's facts readable at any width: the actions go under them when both do not fit", async ({ runPage, page, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (run header widths)');
  // An event id as long as senders' often are, so the facts wrap below 1,100 px.
  const { runId } = await sendWebhook(request, hookId!, order('evt_head_1_2026_12_06_sent_by_the_shop', '7601'));
  await waitForRun(request, runId, ['succeeded']);
  await runPage.open(runId);
  const actions = ['Replay', 'Replay with changes…'];
  for (const width of [800, 1024, 1280, 1600]) {
    await page.setViewportSize({ width, height: 900 });
    // Beside the actions at 800 px, the facts were squeezed into a third of the page, a fact a line.
    const facts = (await page.locator('.run-head__main').boundingBox())!;
    expect(facts.width, `the facts at ${width} px`).toBeGreaterThan(Math.min(width * 0.55, 600));
    const inbox = (await page.getByRole('link', { name: 'Inbox', exact: true }).boundingBox())!;
    for (const name of actions) {
      const box = (await page.getByRole('button', { name, exact: true }).boundingBox())!;
      expect(box.height, `${name} at ${width} px`).toBeLessThan(inbox.height * 1.4);
      expect(box.x + box.width, `${name} at ${width} px`).toBeLessThanOrEqual(width);
    }
    // Facts are parted by dots, but no line of them starts with one: what is drawn at the
    // start of a line is the fact's own first word.
    const lines = await page.locator('.run-head__meta').first().evaluate((list) => {
      const found: Array<{ text: string; startsLine: boolean; dotShows: boolean; wordShows: boolean }> = [];
      let lastTop = Number.NEGATIVE_INFINITY;
      for (const fact of [...list.children] as HTMLElement[]) {
        const box = fact.getBoundingClientRect();
        // What is drawn before the fact's own words is its dot (a pseudo-element is not in a range).
        const words = document.createRange();
        words.selectNodeContents(fact);
        const dot = words.getClientRects()[0]!.left - box.left;
        const y = box.top + box.height / 2;
        const shows = (x: number) => fact.contains(document.elementFromPoint(x, y));
        found.push({ text: fact.textContent ?? '', startsLine: box.top > lastTop + 2, dotShows: dot > 2 && shows(box.left + dot / 2), wordShows: shows(box.left + dot + 2) });
        lastTop = box.top;
      }
      return found;
    });
    expect(lines.filter((line) => line.startsLine).length, `lines of facts at ${width} px`).toBeGreaterThanOrEqual(width < 1100 ? 2 : 1);
    for (const line of lines) {
      expect(line.wordShows, `"${line.text}" at ${width} px`).toBe(true);
      expect(line.dotShows, `the dot before "${line.text}" at ${width} px`).toBe(!line.startsLine);
    }
  }
});

test('the runs list never cuts a run number or start time short: cards up to 1,000 px, the table beyond', async ({ runHistory, page, request }) => {
  const { flowId, hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (list widths)');
  const { runId } = await sendWebhook(request, hookId!, order('evt_list_1', '7701'));
  await waitForRun(request, runId, ['succeeded']);
  await runHistory.open(`?flow=${flowId}`);
  const row = page.locator(`[data-testid="runs.row"][data-run-id="${runId}"]`);
  for (const width of [800, 1000, 1001, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const table = width > 1000;
    await expect(page.getByRole('table', { name: 'Runs' }), `at ${width} px`).toHaveCount(table ? 1 : 0);
    await expect(row, `at ${width} px`).toBeVisible();
    await expect(row, `at ${width} px`).toHaveJSProperty('tagName', table ? 'TR' : 'LI');
    if (!table) continue;
    // Each cell shows all it holds: nothing hidden behind an ellipsis.
    for (const column of [1, 5]) {
      const cell = row.locator(`td:nth-child(${column})`);
      const cut = await cell.evaluate((element) => element.scrollWidth > element.clientWidth);
      expect(cut, `column ${column} at ${width} px`).toBe(false);
    }
  }
});
