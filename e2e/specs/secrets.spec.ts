/**
 * Secrets without a terminal: add one on the Secrets page, pick it in the editor's
 * inspector (and store a new one there), see which flows use it, replace it, delete it
 * after a confirmation that names those flows; the value never reaches the page or any
 * answer the browser receives. And the page at phone width.
 */
import type { Page, Response } from '@playwright/test';
import { trpcCall, seedFlow } from '../fixtures/api.ts';
import { expect, test } from '../fixtures/index.ts';
import { SecretsPage } from '../fixtures/pages/secrets-page.ts';
import { clickStep } from '../fixtures/canvas.ts';

/**
 *   start ──▶ call ──▶ mail
 */
function apiFlow(name: string) {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: { id: 'evt_1' },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'call', type: 'http.request', position: { x: 320, y: 0 }, data: { label: 'Look up the order', request: { method: 'GET', url: 'http://127.0.0.1:9/orders' } } },
      {
        id: 'mail',
        type: 'email.send',
        position: { x: 640, y: 0 },
        data: { label: 'Mail the team', to: 'team@example.com', from: 'shop@example.com', subject: 'Hi', text: 'Hello', smtp: { host: 'smtp.example.com', port: 587, user: 'shop' } },
      },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'call' },
      { id: 'e2', source: 'call', target: 'mail' },
    ],
  };
}

/** Every text the browser received from the server, gathered as answers arrive. */
function recordAnswers(page: Page) {
  const reads: Promise<string>[] = [];
  page.on('response', (response: Response) => {
    if (response.request().resourceType() === 'fetch' || response.request().resourceType() === 'xhr') {
      reads.push(response.text().catch(() => ''));
    }
  });
  return async () => Promise.all(reads);
}

/** The value as it could be read back: as typed, JSON-escaped, URL-encoded, base64. */
function readableForms(value: string): string[] {
  return [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), Buffer.from(value).toString('base64').replace(/=+$/, '')];
}

async function expectNowhere(page: Page, answers: () => Promise<string[]>, values: string[]) {
  const html = await page.content();
  const texts = await answers();
  expect(texts.length).toBeGreaterThan(5);
  for (const value of values) {
    for (const form of readableForms(value)) {
      expect(html, `the page shows ${value}`).not.toContain(form);
      expect(texts.filter((text) => text.includes(form)), `an answer carried ${value}`).toEqual([]);
    }
  }
}

test('a secret from the Secrets page to the inspector and back, its value never shown', async ({ page, editor, request }) => {
  const answers = recordAnswers(page);
  const secrets = new SecretsPage(page);
  const [first, replaced, fromEditor] = ['shop-token-9d2f7a61c4', 'shop-token-2-e07b15aa93', 'mail-pass-41c9d0e7b2'];

  await page.goto('/');
  await secrets.openFromNav();
  await expect(page.getByText('No secrets yet.')).toBeVisible();
  await secrets.add('SHOP_API_TOKEN', first);
  await expect(secrets.card('SHOP_API_TOKEN')).toContainText('Not used by any flow.');

  // A name the CLI would refuse is refused here too, in words.
  await page.getByRole('button', { name: 'Add a secret' }).click();
  await secrets.formDialog().getByLabel('Name', { exact: true }).fill('shop token');
  await secrets.formDialog().getByLabel('Value', { exact: true }).fill('long enough value');
  await secrets.formDialog().getByRole('button', { name: 'Save secret' }).click();
  await expect(secrets.formDialog().getByRole('alert')).toHaveText(/"shop token" cannot be used as a secret name\. A name starts with a capital letter/);
  await secrets.formDialog().getByRole('button', { name: 'Cancel' }).click();
  await expect(secrets.formDialog()).toBeHidden();

  // In the editor: the stored name goes into an Authorization header.
  const flowId = await seedFlow(request, apiFlow('Order lookup'));
  await editor.open(flowId);
  await clickStep(editor.node('http.request'));
  const inspector = page.getByTestId('inspector');
  await inspector.getByRole('button', { name: '+ Add a header' }).click();
  await inspector.getByLabel('Header name 1', { exact: true }).fill('authorization');
  await inspector.getByRole('button', { name: 'Insert secret into header value 1' }).click();
  await inspector.getByTestId('secret-picker').getByRole('button', { name: 'SHOP_API_TOKEN', exact: true }).click();
  await expect(inspector.getByLabel('Header value 1', { exact: true })).toHaveValue('{{ secrets.SHOP_API_TOKEN }}');
  await expect(inspector.getByTestId('secret-picker')).toBeHidden();

  // The mail step's password: a secret stored on the spot with "New secret…", then inserted.
  await clickStep(editor.node('email.send'));
  await inspector.locator('summary', { hasText: 'Mail server' }).click();
  await inspector.getByRole('button', { name: 'Insert secret for Password' }).click();
  await inspector.getByTestId('secret-picker').getByRole('button', { name: 'New secret…' }).click();
  const dialog = page.getByTestId('secret-form');
  await expect(dialog.getByRole('heading', { name: 'New secret' })).toBeVisible();
  await expect(dialog.getByLabel('Value', { exact: true })).toHaveAttribute('type', 'password');
  await dialog.getByLabel('Name', { exact: true }).fill('SMTP_PASSWORD');
  await dialog.getByLabel('Value', { exact: true }).fill(fromEditor);
  await dialog.getByRole('button', { name: 'Save secret' }).click();
  await expect(dialog).toBeHidden();
  await expect(inspector.getByLabel('Password', { exact: true })).toHaveValue('{{ secrets.SMTP_PASSWORD }}');
  await editor.waitSaved();

  // Back on the page: both secrets, each used by the flow's draft.
  await secrets.openFromNav();
  await expect(secrets.cards()).toHaveCount(2);
  await expect(secrets.card('SHOP_API_TOKEN').getByTestId('secret.used-by')).toHaveText('Order lookup (draft only)');
  await expect(secrets.card('SMTP_PASSWORD').getByTestId('secret.used-by')).toHaveText('Order lookup (draft only)');

  // Replacing keeps the name and moves its change time; the dialog never shows the old value.
  const changedBefore = await changedAt(request, 'SHOP_API_TOKEN');
  await secrets.replace('SHOP_API_TOKEN', replaced);
  await expect.poll(() => changedAt(request, 'SHOP_API_TOKEN')).toBeGreaterThan(changedBefore);

  // Deleting asks first and names the flow that will fail; "Keep it" keeps it.
  await secrets.askToDelete('SHOP_API_TOKEN');
  await expect(secrets.deleteDialog()).toContainText('This flow uses SHOP_API_TOKEN. Their runs will fail');
  await expect(secrets.deleteDialog().getByRole('link', { name: 'Order lookup' })).toBeVisible();
  await secrets.deleteDialog().getByRole('button', { name: 'Keep it' }).click();
  await expect(secrets.deleteDialog()).toBeHidden();
  await expect(secrets.cards()).toHaveCount(2);
  await secrets.askToDelete('SHOP_API_TOKEN');
  await secrets.deleteDialog().getByRole('button', { name: 'Delete secret' }).click();
  await expect(secrets.deleteDialog()).toBeHidden();
  await expect(secrets.card('SHOP_API_TOKEN')).toHaveCount(0);
  // Still named by the flow, so it is listed as missing, ready to be added again.
  await expect(secrets.missingCard('SHOP_API_TOKEN')).toContainText('Order lookup');
  await expect(secrets.missingCard('SHOP_API_TOKEN').getByRole('button', { name: 'Add SHOP_API_TOKEN' })).toBeVisible();

  await expectNowhere(page, answers, [first, replaced, fromEditor]);
});

async function changedAt(request: Parameters<typeof trpcCall>[0], name: string): Promise<number> {
  const overview = await trpcCall<{ secrets: Array<{ name: string; updatedAt: number }> }>(request, 'secretAdmin.list', undefined, 'query');
  return overview.secrets.find((secret) => secret.name === name)?.updatedAt ?? 0;
}

test('the Secrets page at phone width: cards, no sideways scroll', async ({ page, request }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const longName = `A_VERY_LONG_SECRET_NAME_${'X'.repeat(36)}`;
  await trpcCall(request, 'secretAdmin.save', { name: longName, value: 'phone-width-value-1' });
  await trpcCall(request, 'secretAdmin.save', { name: 'PHONE_TOKEN', value: 'phone-width-value-2' });
  const flow = apiFlow(`A flow with a rather long name that has to wrap on a phone ${'and more '.repeat(4)}`);
  flow.nodes[1]!.data = { ...flow.nodes[1]!.data, request: { method: 'GET', url: 'http://127.0.0.1:9/orders', headers: { authorization: `Bearer {{ secrets.${longName} }} {{ secrets.PHONE_TOKEN }} {{ secrets.NOT_STORED_YET }}` } } } as never;
  await seedFlow(request, flow);

  const secrets = new SecretsPage(page);
  await secrets.open();
  await expect(secrets.card(longName)).toBeVisible();
  await expect(secrets.card('PHONE_TOKEN').getByTestId('secret.used-by')).toContainText('A flow with a rather long name');
  await expect(secrets.missingCard('NOT_STORED_YET')).toBeVisible();
  await secrets.expectNoSidewaysScroll();
  // Cards stack: each as wide as the list, none beside another.
  const boxes = await secrets.cards().evaluateAll((cards) => cards.map((card) => card.getBoundingClientRect().toJSON() as DOMRect));
  expect(boxes.length).toBeGreaterThanOrEqual(2);
  for (const box of boxes) expect(box.right).toBeLessThanOrEqual(390);
  expect(new Set(boxes.map((box) => Math.round(box.left))).size).toBe(1);

  await secrets.askToDelete(longName);
  await secrets.expectNoSidewaysScroll();
  const dialogBox = await secrets.deleteDialog().boundingBox();
  expect(dialogBox!.x).toBeGreaterThanOrEqual(0);
  expect(dialogBox!.x + dialogBox!.width).toBeLessThanOrEqual(390);
});
