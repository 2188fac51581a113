/**
 * The README's "Try it in five minutes", step by step, exactly as written: the template,
 * a test run against the stand-ins and its replay, a test against the sandbox and the
 * ledger through `npx onceflow`, the honest case with answers dropped, then Publish. If
 * this fails, the README tells a newcomer something untrue.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { configureSandbox, resetSandbox } from '../fixtures/api.ts';
import { expect, test } from '../fixtures/index.ts';

const run = promisify(execFile);

/** The README's tour section, read from the file so the test follows what it says. */
const TOUR = (() => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  return readme.slice(readme.indexOf('## Try it in five minutes'), readme.indexOf('\n## ', readme.indexOf('## Try it in five minutes') + 5));
})();

/** Runs a command the tour names (`npx onceflow …`), against the test server. */
async function command(line: string, baseURL: string): Promise<string> {
  expect(TOUR, `the tour names \`${line}\``).toContain(`\`${line}\``);
  const [program, ...args] = line.split(' ');
  const { stdout } = await run(program!, args, { env: { ...process.env, ONCEFLOW_URL: baseURL }, timeout: 60_000 });
  return stdout;
}

/** On the flow's page: Real services…, then the confirmation; opens the new test run. */
async function testAgainstRealServices(page: Page) {
  expect(TOUR).toMatch(/\*\*Real services…\*\*, (then )?confirm/);
  await page.getByRole('button', { name: 'Real services…' }).click();
  const dialog = page.getByTestId('editor.real-services');
  await expect(dialog).toContainText('This test will really act on:');
  await dialog.getByRole('button', { name: /^Send to / }).click();
  await expect(page).toHaveURL(/\/runs\/run_/);
}

/** Opens the run's flow from the run page, sets the sample's order id and tests against the sandbox. */
async function testWithOrderId(page: Page, orderId: string) {
  expect(TOUR).toMatch(/Open the flow again, change the order id in \*\*Sample input\*\*[^]*test against the real services again/);
  await page.locator('.run-head__flow').click();
  await page.getByRole('tab', { name: 'Sample input' }).click();
  const sample = page.getByRole('textbox', { name: 'Sample input' });
  const text = await sample.inputValue();
  await sample.fill(text.replace(/"id": "\d+"/, `"id": "${orderId}"`));
  await testAgainstRealServices(page);
}

test('the five-minute tour works exactly as the README says', async ({ page, flowList, runPage, baseURL }) => {
  test.setTimeout(180_000);
  await resetSandbox(page.request);

  // 1–2. The template and a test run: nothing published, nothing real touched.
  expect(TOUR).toContain('choose **Order paid → invoice → receipt email**');
  expect(TOUR).toContain('click **Test run**');
  await flowList.open();
  await flowList.useTemplate('Order paid → invoice → receipt email');
  await expect(page).toHaveURL(/\/flows\/flow_/);
  await page.getByRole('button', { name: 'Test run' }).click();
  await expect(page).toHaveURL(/\/runs\/run_/);

  // 3. Badged Test; the stand-ins did the invoice and the receipt; Replay stops both as duplicates.
  await runPage.waitForStatus('succeeded');
  await expect(page.getByTestId('run.test-badge').first()).toHaveText('Test');
  await expect(page.getByText('Done by a stand-in').first()).toBeVisible();
  await runPage.button('Replay').click();
  await runPage.waitForStatus('succeeded');
  await expect(runPage.entriesOfType('step.duplicate')).toHaveCount(2);
  await expect(page.getByText('Duplicate stopped').first()).toBeVisible();
  expect(await command('npx onceflow sandbox ledger', baseURL!)).not.toContain('4417');

  // 4. Against the sandbox: one invoice, one email, however many runs.
  expect(TOUR).toMatch(/Open the flow \(its\s+name at the top of the run page\), click \*\*Real services…\*\*/);
  await page.locator('.run-head__flow').click();
  await testAgainstRealServices(page);
  await runPage.waitForStatus('succeeded');
  await runPage.button('Replay').click();
  await runPage.waitForStatus('succeeded');
  await runPage.button('Replay').click();
  await runPage.waitForStatus('succeeded');
  const ledger = await command('npx onceflow sandbox ledger', baseURL!);
  expect(ledger).toMatch(/4417:invoice\s+arrived once, took effect once/);
  expect(ledger).toMatch(/4417:receipt-email\s+arrived once, took effect once/);
  expect(ledger).not.toContain('duplicate');

  // 5. The honest case: the email's answer is dropped, the run asks, "It happened" ends it.
  await command('npx onceflow sandbox set email --drop-answer on', baseURL!);
  await testWithOrderId(page, '4418');
  await runPage.waitForStatus('needs_review', 60_000);
  await expect(page.getByText('Outcome unknown').first()).toBeVisible();
  await page.getByRole('button', { name: 'It happened' }).click();
  await runPage.waitForStatus('succeeded');

  // Payments honour keys: with their answers dropped too, each order is still charged once.
  await command('npx onceflow sandbox set email --drop-answer off', baseURL!);
  await command('npx onceflow sandbox set payments --drop-answer on', baseURL!);
  await testWithOrderId(page, '4419');
  await runPage.waitForStatus('succeeded', 60_000);
  const after = await command('npx onceflow sandbox ledger', baseURL!);
  expect(after).toMatch(/4418:receipt-email\s+arrived once, took effect once/);
  expect(after).toMatch(/4419:invoice\s+arrived (twice|\d+ times), took effect once/);
  expect(after).not.toContain('<- duplicate');
  // 6. Publish: live from now on.
  expect(TOUR).toContain('click **Publish**: events sent to its webhook address');
  await page.locator('.run-head__flow').click();
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(page.getByText('Live is up to date')).toBeVisible();
  // Not part of the tour: the specs after this one expect answers to arrive.
  await configureSandbox(page.request, 'payments', { dropAnswer: false });
});
