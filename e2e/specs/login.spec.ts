import { startServerProcess, type ServerProcess } from '../../server/testing/server-process.ts';
import { expect, test } from '../fixtures/index.ts';

// A server open beyond this machine asks for its admin password; the first screen's early
// requests (index.html) must then fall back to the ordinary ones after logging in.
let server: ServerProcess;
test.beforeAll(async () => {
  server = await startServerProcess({ HOST: '0.0.0.0', ONCEFLOW_ADMIN_PASSWORD: 'correct horse battery', DATABASE_URL: '' });
});
test.afterAll(async () => {
  await server?.kill();
});

test('an editor address asks for the password first, then opens the flow', async ({ browser }) => {
  const owner = await browser.newContext();
  const page = await owner.newPage();
  await page.goto(`${server.url}/`);
  await page.getByLabel('Admin password').fill('correct horse battery');
  await page.getByRole('button', { name: /log in/i }).click();
  await page.getByLabel('Name of the new flow').fill('Behind a password');
  await page.getByRole('button', { name: 'New flow' }).click();
  await expect(page).toHaveURL(/\/flows\/flow_/);
  const address = page.url();

  // Logged in: the address opens straight away.
  const again = await owner.newPage();
  await again.goto(address);
  await expect(again.locator('.react-flow')).toBeVisible();
  await owner.close();

  // A browser without the session: the login page, then the same flow.
  const stranger = await (await browser.newContext()).newPage();
  await stranger.goto(address);
  await expect(stranger.getByLabel('Admin password')).toBeVisible();
  await stranger.getByLabel('Admin password').fill('correct horse battery');
  await stranger.getByRole('button', { name: /log in/i }).click();
  await expect(stranger.locator('.react-flow')).toBeVisible();
  await expect(stranger.getByText('This flow could not be opened')).toHaveCount(0);
  await expect(stranger.getByText('Saved')).toBeVisible();
});
