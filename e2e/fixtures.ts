/**
 * Page objects for the browser tests. Flows are seeded through the API; the UI is driven
 * by accessible names so the tests read like what a person does.
 */
import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test';

export class FlowListPage {
  constructor(readonly page: Page) {}

  async open() {
    await this.page.goto('/');
    await expect(this.page.getByRole('heading', { name: 'Flows' })).toBeVisible();
  }

  rows() {
    return this.page.getByTestId('flow-list.row');
  }

  async createFlow(name: string) {
    await this.page.getByLabel('Name of the new flow').fill(name);
    await this.page.getByRole('button', { name: 'New flow' }).click();
  }
}

/** Calls a tRPC procedure over HTTP, as the CLI does. */
export async function trpcCall<T = unknown>(request: APIRequestContext, path: string, input?: unknown, kind: 'query' | 'mutation' = 'mutation'): Promise<T> {
  const response =
    kind === 'query'
      ? await request.get(`/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`)
      : await request.post(`/trpc/${path}`, { data: input ?? {} });
  const body = await response.json();
  if (!response.ok()) throw new Error(`${path} failed: ${JSON.stringify(body)}`);
  return body.result.data as T;
}

export const test = base.extend<{ flowList: FlowListPage }>({
  flowList: async ({ page }, use) => {
    await use(new FlowListPage(page));
  },
});

export { expect };
