/**
 * An automated accessibility audit (axe-core) of every page a person uses: the flow list,
 * the editor with a step selected, the editor with a For each (its "Add a step inside" list open), a run, the runs list (and a flow's,
 * empty but for test runs), a flow's inbox, a proof report,
 * a recovery report, secrets, the default alerts, the editor's Alerts tab, the page for an unknown address and the login page, at desktop and phone width. Serious and critical findings fail the test,
 * each listed with the element it is about so the failure says what to fix.
 */
import type { Page } from '@playwright/test';
import { startServerProcess, type ServerProcess } from '../../server/testing/server-process.ts';
import { seedFlow, sendWebhook, trpcCall, waitForRun } from '../fixtures/api.ts';
import { ORDER_SAMPLE, orderFlowDocument } from '../fixtures/flows.ts';
import { loopFlow } from '../../server/testing/loop-flows.ts';
import { expect, test } from '../fixtures/index.ts';
import { seriousFindings } from '../fixtures/a11y.ts';
import { clickStep } from '../fixtures/canvas.ts';

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

/** A published order flow with one run that failed (its receiver does not exist): a run page with something to say. */
async function seed(page: Page): Promise<{ flowId: string; loopFlowId: string; runId: string; proofId: string; operationId: string }> {
  const flowId = await seedFlow(page.request, orderFlowDocument(`Audited flow ${Date.now()}`));
  await trpcCall(page.request, 'flows.publish', { id: flowId });
  const flow = await trpcCall<{ triggers: Array<{ hookId: string; kind: string }> }>(page.request, 'flows.get', { id: flowId }, 'query');
  const hookId = flow.triggers.find((trigger) => trigger.kind === 'trigger.webhook')!.hookId;
  const { runId } = await sendWebhook(page.request, hookId, { ...ORDER_SAMPLE, id: `evt_a11y_${Date.now()}`, order: { ...ORDER_SAMPLE.order, id: `a11y-${Date.now()}` } });
  await waitForRun(page.request, runId, ['succeeded', 'failed', 'needs_review'], 60_000);
  // A proof report to read, finished.
  const { proofId } = await trpcCall<{ proofId: string }>(page.request, 'proofs.start', { flowId });
  await expect.poll(async () => (await trpcCall<{ status: string }>(page.request, 'proofs.get', { proofId }, 'query')).status, { timeout: 60_000 }).not.toBe('running');
  // A recovery report to read: the run replayed, whatever it ended as.
  const { id: operationId } = await trpcCall<{ id: string }>(page.request, 'operations.recover', { flowId, statuses: ['failed', 'needs_review', 'succeeded'], mode: 'replay' });
  // Something on the Secrets page to read (save answers 400 once the name is taken).
  await page.request.post('/trpc/secretAdmin.save', { data: { name: 'AUDIT_TOKEN', value: 'a long stand-in value' } });
  // A flow with a loop, for the editor's For each box (nothing is sent: it is only looked at).
  const loopFlowId = await seedFlow(page.request, loopFlow('http://127.0.0.1:9', { name: `Audited loop ${Date.now()}` }));
  // Only a test run of it, so its runs list is empty and offers to show the test runs.
  await trpcCall(page.request, 'tests.start', { flowId: loopFlowId });
  return { flowId, loopFlowId, runId, proofId, operationId };
}

for (const size of SIZES) {
  test.describe(`accessibility at ${size.name} width`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('every page has no serious or critical findings', async ({ page }) => {
      test.setTimeout(120_000);
      const { flowId, loopFlowId, runId, proofId, operationId } = await seed(page);
      const pages: { name: string; open: () => Promise<void> }[] = [
        { name: 'flow list', open: async () => { await page.goto('/'); await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible(); } },
        {
          name: 'editor with a step selected',
          open: async () => {
            await page.goto(`/flows/${flowId}`);
            const step = page.locator('.react-flow__node').nth(1);
            await expect(step).toBeVisible();
            await clickStep(step);
            await expect(page.getByTestId('inspector')).toBeVisible();
          },
        },
        {
          name: 'editor with a For each',
          open: async () => {
            await page.goto(`/flows/${loopFlowId}`);
            const loop = page.getByTestId('node.for.each');
            await expect(loop).toBeVisible();
            await clickStep(loop, { position: { x: 20, y: 20 } });
            await expect(page.getByTestId('inspector.items')).toBeVisible();
            // At desktop width the loop offers its list of steps to add inside (read-only at phone width).
            if (size.width > 760) await loop.getByRole('button', { name: /Add a step inside/ }).click();
          },
        },
        { name: 'run page', open: async () => { await page.goto(`/runs/${runId}`); await expect(page.getByTestId('run.status')).toBeVisible(); } },
        {
          name: 'runs list',
          open: async () => {
            await page.goto('/runs');
            await expect(page.getByRole('link', { name: /#\d+/ }).first()).toBeVisible();
            await expect(page.getByTestId('runs.keeping')).toBeVisible();
          },
        },
        {
          name: 'runs list of a flow with only test runs',
          open: async () => {
            await page.goto(`/runs?flow=${loopFlowId}`);
            await expect(page.getByTestId('runs.empty').getByRole('button', { name: 'Show test runs' })).toBeVisible();
          },
        },
        { name: 'inbox', open: async () => { await page.goto(`/flows/${flowId}/inbox`); await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible(); } },
        { name: 'proof report', open: async () => { await page.goto(`/flows/${flowId}/proofs/${proofId}`); await expect(page.getByTestId('proof.headline')).toBeVisible(); } },
        { name: 'recovery report', open: async () => { await page.goto(`/operations/${operationId}`); await expect(page.getByTestId('operation.asked')).toBeVisible(); } },
        { name: 'secrets', open: async () => { await page.goto('/secrets'); await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible(); } },
        { name: 'page not found', open: async () => { await page.goto('/no-page-here'); await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible(); } },
        {
          name: 'default alerts',
          open: async () => {
            await page.goto('/alerts');
            const enabled = page.getByRole('checkbox', { name: 'Send alerts' });
            await expect(enabled).toBeVisible();
            if (!(await enabled.isChecked())) await enabled.check();
            await expect(page.getByLabel('Incoming webhook address')).toBeVisible();
          },
        },
        {
          name: "editor's Alerts tab",
          open: async () => {
            await page.goto(`/flows/${flowId}`);
            await page.getByRole('tab', { name: 'Alerts' }).click();
            await expect(page.getByRole('radio', { name: 'The default alerts (set on the Alerts page)' })).toBeVisible();
          },
        },
      ];
      const findings: string[] = [];
      try {
        for (const { name, open } of pages) {
          await open();
          findings.push(...(await seriousFindings(page)).map((finding) => `${name}: ${finding}`));
        }
      } finally {
        // The browser tests share one server: leave the Secrets page as the others expect it.
        await page.request.post('/trpc/secretAdmin.delete', { data: { name: 'AUDIT_TOKEN' } });
      }
      expect(findings).toEqual([]);
    });
  });
}

test.describe('the login page', () => {
  let server: ServerProcess;
  test.beforeAll(async () => {
    server = await startServerProcess({ HOST: '0.0.0.0', ONCEFLOW_ADMIN_PASSWORD: 'correct horse battery', DATABASE_URL: '' });
  });
  test.afterAll(async () => {
    await server?.kill();
  });

  for (const size of SIZES) {
    test(`has no serious or critical findings at ${size.name} width`, async ({ browser }) => {
      // axe reads the page through its context, so the page needs a context of its own.
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      await page.goto(`${server.url}/`);
      await expect(page.getByLabel('Admin password')).toBeVisible();
      expect(await seriousFindings(page)).toEqual([]);
      await context.close();
    });
  }
});
