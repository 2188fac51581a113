/**
 * Page objects for the browser tests. Flows are seeded through the API; the UI is driven
 * by accessible names so the tests read like what a person does. Pointer drags are real
 * (React Flow only starts a drag after intermediate moves, hence `steps`).
 */
import { test as base, expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';

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

  /** Chooses a flow file in the Import dialog; the app then opens the imported flow. */
  async importFile(name: string, content: unknown) {
    const chooser = this.page.waitForEvent('filechooser');
    await this.page.getByRole('button', { name: 'Import', exact: true }).click();
    await (await chooser).setFiles({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(content, null, 2)) });
  }

  async useTemplate(name: string) {
    await this.page.getByRole('button', { name: `Use template ${name}` }).click();
  }
}

type Point = { x: number; y: number };

export class EditorPage {
  constructor(readonly page: Page) {}

  async open(flowId: string) {
    await this.page.goto(`/flows/${flowId}`);
    await expect(this.canvas()).toBeVisible();
  }

  canvas() {
    return this.page.getByTestId('editor.canvas');
  }

  paletteItem(label: string) {
    return this.page.getByRole('navigation', { name: 'Steps you can add' }).getByRole('button', { name: label, exact: true });
  }

  /** A step on the canvas by its kind, e.g. `http.request`. */
  node(kind: string) {
    return this.page.getByTestId(`node.${kind}`);
  }

  edges() {
    return this.page.locator('.react-flow__edge');
  }

  saveStatus() {
    return this.page.getByTestId('editor.save-status');
  }

  notice() {
    return this.page.getByTestId('editor.notice');
  }

  field(label: string) {
    return this.page.getByTestId('inspector').getByLabel(label, { exact: true });
  }

  sideEffectSwitch() {
    return this.page.getByRole('switch', { name: 'Has side effects' });
  }

  keyField() {
    return this.field('Idempotency key');
  }

  keyPreview() {
    return this.page.getByTestId('key.preview');
  }

  keyLint() {
    return this.page.getByTestId('key.lint');
  }

  async waitSaved() {
    await expect(this.saveStatus()).toHaveText('Saved');
  }

  /** Drags a kind from the palette and drops it at a point of the canvas (relative to its top left). */
  async dragKindToCanvas(label: string, at: Point) {
    const from = await center(this.paletteItem(label));
    const box = await boxOf(this.canvas());
    await this.page.mouse.move(from.x, from.y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + at.x, box.y + at.y, { steps: 10 });
    await this.page.mouse.up();
  }

  /** Draws a connection from a step's exit to another step's entry, as a person would. */
  async connect(from: Locator, to: Locator, exit?: 'true' | 'false') {
    const source = exit ? from.locator(`.react-flow__handle.source[data-handleid="${exit}"]`) : from.locator('.react-flow__handle.source');
    await this.drag(await center(source), await center(to.locator('.react-flow__handle.target')));
  }

  async dragBy(target: Locator, dx: number, dy: number) {
    const start = await center(target);
    await this.drag(start, { x: start.x + dx, y: start.y + dy });
  }

  async drag(from: Point, to: Point) {
    await this.page.mouse.move(from.x, from.y);
    await this.page.mouse.down();
    await this.page.mouse.move(to.x, to.y, { steps: 10 });
    await this.page.mouse.up();
  }

  async publish() {
    await this.page.getByRole('button', { name: 'Publish', exact: true }).click();
  }
}

export async function boxOf(locator: Locator) {
  const box = await locator.boundingBox();
  if (!box) throw new Error('The element is not visible.');
  return box;
}

export async function center(locator: Locator): Promise<Point> {
  const box = await boxOf(locator);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
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

/** Creates a flow from a document through the API and returns its id. */
export async function seedFlow(request: APIRequestContext, document: { name: string; [field: string]: unknown }): Promise<string> {
  const { id } = await trpcCall<{ id: string }>(request, 'flows.create', { name: document.name, document });
  return id;
}

export const ORDER_SAMPLE = {
  id: 'evt_1',
  type: 'order.paid',
  order: { id: '4417', total: 120, customer: { email: 'ada@example.com', name: 'Ada' } },
};

/**
 *   hook ──▶ invoice        (connected unless `connected: false`)
 */
export function orderFlowDocument(name: string, options: { key?: string; connected?: boolean } = {}) {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: ORDER_SAMPLE,
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { label: 'Shop webhook', eventId: '{{ trigger.body.id }}' } },
      {
        id: 'invoice',
        type: 'http.request',
        position: { x: 340, y: 0 },
        data: {
          label: 'Create invoice',
          sideEffect: true,
          key: options.key ?? '{{ trigger.body.order.id }}:invoice',
          request: { method: 'POST', url: 'http://127.0.0.1:9/invoices' },
        },
      },
    ],
    edges: options.connected === false ? [] : [{ id: 'e1', source: 'hook', target: 'invoice' }],
  };
}

export const test = base.extend<{ flowList: FlowListPage; editor: EditorPage }>({
  flowList: async ({ page }, use) => {
    await use(new FlowListPage(page));
  },
  editor: async ({ page }, use) => {
    await use(new EditorPage(page));
  },
});

export { expect };
