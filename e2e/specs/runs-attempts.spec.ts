/**
 * What a run page says about attempts and paths: after a rerun it follows the new
 * attempt (status and events) and times each attempt on its own; the rerun preview and
 * the timeline use words that match what happened; a condition says which way it went.
 *
 *   shop (webhook) ──▶ invoice (payments) ──▶ receipt (email)
 *   start (manual) ──▶ big ("Big order?") ──Yes──▶ tag_big
 *                                          └──No──▶ tag_small
 */
import { expect, test } from '../fixtures/index.ts';
import { configureSandbox, resetSandbox, sandboxEffects, seedFlow, seedTemplate, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';
import { formatDuration } from '../../web/runs/run-words.ts';
import { clickStep } from '../fixtures/canvas.ts';

test.use({ viewport: { width: 1600, height: 900 } });

const TEMPLATE = 'order-paid-invoice-receipt';

function order(eventId: string, orderId: string) {
  return { id: eventId, type: 'order.paid', order: { id: orderId, total: 120, currency: 'EUR', customer: { email: 'ada@example.com', name: 'Ada' } } };
}

const BIG_ORDER = {
  format: 'onceflow/v1',
  name: 'Big orders',
  sampleInput: { order: { total: '50' } },
  nodes: [
    { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Start' } },
    { id: 'big', type: 'condition', position: { x: 300, y: 0 }, data: { label: 'Big order?', left: '{{ trigger.body.order.total }}', op: 'gt', right: '30' } },
    { id: 'tag_big', type: 'transform', position: { x: 600, y: -120 }, data: { label: 'Tag as big', outputs: { size: 'big' } } },
    { id: 'tag_small', type: 'transform', position: { x: 600, y: 120 }, data: { label: 'Tag as small', outputs: { size: 'small' } } },
  ],
  edges: [
    { id: 'e_start', source: 'start', target: 'big' },
    { id: 'e_yes', source: 'big', sourceHandle: 'true', target: 'tag_big' },
    { id: 'e_no', source: 'big', sourceHandle: 'false', target: 'tag_small' },
  ],
};

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

test('after a rerun the page follows the new attempt and times each attempt on its own', async ({ runPage, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (attempts)');
  await configureSandbox(request, 'payments', { failureRate: 1 });
  const { runId } = await sendWebhook(request, hookId!, order('evt_attempts', '7801'));

  await runPage.open(runId);
  await runPage.waitForStatus('failed');
  await expect(runPage.durations()).toHaveText(/^Took /);

  // The new attempt takes a while, so its live status can be seen.
  await configureSandbox(request, 'payments', { failureRate: 0, latencyMs: 4000 });
  await runPage.button('Rerun').click();
  const preview = runPage.rerunDialog().getByTestId('rerun.preview');
  await expect(preview.locator('[data-action="act"]').filter({ hasText: 'Create invoice' })).toContainText('Acts again');
  // The receipt never ran in this run: it runs for the first time, not "again".
  const receipt = preview.locator('[data-action="act"]').filter({ hasText: 'Email the receipt' });
  await expect(receipt).toContainText('Runs for the first time');
  await expect(receipt).not.toContainText(/again/i);
  await runPage.button('Rerun now').click();

  // The status moves with the new attempt instead of staying "failed".
  await expect(runPage.status()).toHaveAttribute('data-status', /^(queued|running)$/, { timeout: 1500 });
  await expect(runPage.status()).not.toHaveText('failed');
  // The focus and the timeline's scroll go to the new attempt's events.
  await expect(runPage.timelineViewport()).toBeFocused();
  await expect(runPage.entriesOfType('run.rerun')).toBeInViewport();
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('run.succeeded')).toBeInViewport();
  expect(await sandboxEffects(request, 'payments')).toBe(1);

  // Each attempt's own duration, from its start to its end; the wait in between is in neither.
  // The run's row has the first attempt's start and the current one's end, as the runs list uses them.
  const { events } = await trpcCall<{ events: Array<{ type: string; attempt: number; createdAt: number }> }>(request, 'runs.timeline', { runId, limit: 5000 }, 'query');
  const { run } = await trpcCall<{ run: { startedAt: number; finishedAt: number } }>(request, 'runs.get', { runId }, 'query');
  const at = (type: string, attempt: number) => events.find((event) => event.type === type && event.attempt === attempt)!.createdAt;
  const first = at('run.failed', 1) - run.startedAt;
  const second = run.finishedAt - at('run.started', 2);
  await expect(runPage.durations()).toHaveText(`Attempt 1 took ${formatDuration(first)}, attempt 2 took ${formatDuration(second)}`);
});

test('after "It happened" the timeline says the step was recorded as done by the decision, not that it finished', async ({ runPage, request }) => {
  const { hookId } = await seedTemplate(request, TEMPLATE, 'Invoices (decision words)');
  await configureSandbox(request, 'email', { dropAnswer: true });
  const { runId } = await sendWebhook(request, hookId!, order('evt_decision_words', '7802'));

  await runPage.open(runId);
  await runPage.waitForStatus('needs_review');
  await configureSandbox(request, 'email', { dropAnswer: false });
  await runPage.button('It happened').click();
  await runPage.waitForStatus('succeeded');

  const settled = runPage.entriesOfType('step.skipped').filter({ hasText: 'Email the receipt' });
  await expect(settled).toContainText('Recorded as done by your decision');
  await expect(settled).not.toContainText('already finished');
  expect(await sandboxEffects(request, 'email')).toBe(1);
});

test('a condition says which way it went, and the canvas shows the path taken', async ({ runPage, request }) => {
  const flowId = await seedFlow(request, BIG_ORDER);
  await trpcCall(request, 'flows.publish', { id: flowId });
  const { runId } = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: { order: { total: '50' } } });
  await waitForRun(request, runId, ['succeeded']);

  await runPage.open(runId);
  await runPage.waitForStatus('succeeded');
  const decided = runPage.entriesOfType('step.succeeded').filter({ hasText: 'Big order?' });
  await expect(decided).toContainText('50 is more than 30 → Yes');
  await expect(decided).not.toContainText('"op"');

  await expect(runPage.edge('e_yes')).toHaveClass(/\bis-taken\b/);
  await expect(runPage.edge('e_no')).toHaveClass(/\bis-not-taken\b/);
  await expect(runPage.edge('e_yes')).toContainText('Yes (taken)');
  await expect(runPage.node('tag_big')).toHaveAttribute('data-status', 'succeeded');
  await expect(runPage.node('tag_small')).toHaveAttribute('data-status', 'skipped');

  await clickStep(runPage.node('big'));
  await expect(runPage.drawer().getByTestId('step-drawer.decision')).toHaveText('50 is more than 30 → Yes');
  await expect(runPage.drawer()).not.toContainText('"op"');

  // The other way round: a small order takes the No exit.
  const small = await trpcCall<{ runId: string }>(request, 'runs.start', { flowId, input: { order: { total: 12 } } });
  await waitForRun(request, small.runId, ['succeeded']);
  await runPage.open(small.runId);
  await expect(runPage.entriesOfType('step.succeeded').filter({ hasText: 'Big order?' })).toContainText('12 is not more than 30 → No');
  await expect(runPage.edge('e_no')).toHaveClass(/\bis-taken\b/);
  await expect(runPage.edge('e_yes')).toHaveClass(/\bis-not-taken\b/);
});
