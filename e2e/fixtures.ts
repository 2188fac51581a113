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

/** A run at /runs/<runId>: its status, canvas, timeline, step drawer and actions. */
export class RunPage {
  constructor(readonly page: Page) {}

  async open(runId: string) {
    await this.page.goto(`/runs/${runId}`);
    await expect(this.status()).toBeVisible();
  }

  status() {
    return this.page.getByTestId('run.status');
  }

  /** Waits for the run's raw status (`succeeded`, `needs_review` …); the page follows the run live. */
  async waitForStatus(status: string, timeout = 20_000) {
    await expect(this.status()).toHaveAttribute('data-status', status, { timeout });
  }

  timeline() {
    return this.page.getByRole('list', { name: 'Timeline' });
  }

  /** Timeline entries, optionally only those whose text contains `text` (e.g. "Duplicate stopped"). */
  entries(text?: string) {
    const items = this.timeline().getByRole('listitem');
    return text ? items.filter({ hasText: text }) : items;
  }

  /** Timeline entries of one event type, e.g. `step.duplicate` (DESIGN.md §8). */
  entriesOfType(type: string) {
    return this.timeline().locator(`[role="listitem"][data-type="${type}"]`);
  }

  /** A step on the run's canvas by its id; its `data-status` is its status in this run. */
  node(nodeId: string) {
    return this.page.getByTestId(`run.node.${nodeId}`);
  }

  drawer() {
    return this.page.getByTestId('step-drawer');
  }

  button(name: string) {
    return this.page.getByRole('button', { name, exact: true });
  }

  rerunDialog() {
    return this.page.getByTestId('rerun.dialog');
  }
}

export class RunHistoryPage {
  constructor(readonly page: Page) {}

  async open(query = '') {
    await this.page.goto(`/runs${query}`);
    await expect(this.page.getByRole('heading', { level: 1 })).toContainText('Runs');
  }

  rows() {
    return this.page.getByTestId('runs.row');
  }

  row(runId: string) {
    return this.page.locator(`[data-testid="runs.row"][data-run-id="${runId}"]`);
  }
}

export class InboxPage {
  constructor(readonly page: Page) {}

  async open(flowId: string) {
    await this.page.goto(`/flows/${flowId}/inbox`);
    await expect(this.page.getByRole('heading', { name: /Inbox of/ })).toBeVisible();
  }

  rows() {
    return this.page.getByTestId('inbox.row');
  }
}

/**
 * A copy of a gallery template under its own name, published, so a test has a flow (and
 * idempotency key scopes) no other test shares. Returns its webhook address when it has one.
 */
export async function seedTemplate(request: APIRequestContext, templateId: string, name: string) {
  const { id: flowId } = await trpcCall<{ id: string }>(request, 'gallery.use', { templateId });
  const flow = await trpcCall<{ draft: { name: string; sampleInput?: unknown } }>(request, 'flows.get', { id: flowId }, 'query');
  await trpcCall(request, 'flows.saveDraft', { id: flowId, document: { ...flow.draft, name } });
  await trpcCall(request, 'flows.publish', { id: flowId });
  const published = await trpcCall<{ triggers: Array<{ hookId: string; kind: string }> }>(request, 'flows.get', { id: flowId }, 'query');
  const hookId = published.triggers.find((trigger) => trigger.kind === 'trigger.webhook')?.hookId ?? null;
  return { flowId, hookId, sampleInput: flow.draft.sampleInput };
}

/** Delivers an event to a webhook as a shop would; answers `{ runId, duplicate? }`. */
export async function sendWebhook(request: APIRequestContext, hookId: string, body: unknown): Promise<{ runId: string; duplicate?: boolean }> {
  const response = await request.post(`/hooks/${hookId}`, { data: body });
  if (!response.ok()) throw new Error(`The webhook refused the delivery (${response.status()}): ${await response.text()}`);
  return (await response.json()) as { runId: string; duplicate?: boolean };
}

type RunStatusWord = 'queued' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'needs_review' | 'cancelled';

/** Polls a run until it reaches one of `statuses`. */
export async function waitForRun(request: APIRequestContext, runId: string, statuses: RunStatusWord[], timeout = 20_000) {
  let status = '';
  await expect
    .poll(async () => {
      status = (await trpcCall<{ run: { status: string } }>(request, 'runs.get', { runId }, 'query')).run.status;
      return statuses.includes(status as RunStatusWord);
    }, { timeout, message: `run ${runId} should become ${statuses.join(' or ')}` })
    .toBe(true);
  return status as RunStatusWord;
}

export type Receiver = 'payments' | 'email' | 'crm' | 'chat';

/** How many times a sandbox receiver acted (created an invoice, accepted an email …) since the last reset. */
export async function sandboxEffects(request: APIRequestContext, receiver: Receiver): Promise<number> {
  const ledger = await trpcCall<{ receivers: Array<{ effects: number }> }>(request, 'sandbox.ledger', { receiver, limit: 0 }, 'query');
  return ledger.receivers[0]?.effects ?? 0;
}

export async function configureSandbox(request: APIRequestContext, receiver: Receiver, settings: { latencyMs?: number; failureRate?: number; dropAnswer?: boolean }) {
  await trpcCall(request, 'sandbox.configure', { receiver, ...settings });
}

/** Empties the sandbox's ledgers and puts every receiver back to answering at once, always. */
export async function resetSandbox(request: APIRequestContext) {
  await trpcCall(request, 'sandbox.reset', {});
  for (const receiver of ['payments', 'email', 'crm', 'chat'] as const) await configureSandbox(request, receiver, { latencyMs: 0, failureRate: 0, dropAnswer: false });
}

export const test = base.extend<{ flowList: FlowListPage; editor: EditorPage; runPage: RunPage; runHistory: RunHistoryPage; inbox: InboxPage }>({
  flowList: async ({ page }, use) => {
    await use(new FlowListPage(page));
  },
  editor: async ({ page }, use) => {
    await use(new EditorPage(page));
  },
  runPage: async ({ page }, use) => {
    await use(new RunPage(page));
  },
  runHistory: async ({ page }, use) => {
    await use(new RunHistoryPage(page));
  },
  inbox: async ({ page }, use) => {
    await use(new InboxPage(page));
  },
});

export { expect };

/**
 * A snake of `steps` steps, 20 to a row, each leading to the next (a webhook trigger
 * first): too wide to read when fitted to a screen. Step `sN` is the N-th.
 */
export function largeFlowDocument(steps: number) {
  const columns = 20;
  const kinds = ['http.request', 'transform', 'message.post', 'delay'] as const;
  const nodes = Array.from({ length: steps }, (_, i) => {
    const row = Math.floor(i / columns);
    const column = row % 2 === 0 ? i % columns : columns - 1 - (i % columns);
    const position = { x: column * 320, y: row * 160 };
    const id = `s${i}`;
    if (i === 0) return { id, type: 'trigger.webhook', position, data: { label: 'Order event', eventId: '{{ trigger.body.id }}' } as Record<string, unknown> };
    const kind = kinds[i % kinds.length] as (typeof kinds)[number];
    const key = `{{ trigger.body.order.id }}:step-${i}`;
    const data = {
      'http.request': { label: `Call service ${i}`, key, request: { method: 'POST', url: 'http://127.0.0.1:9/x' } },
      transform: { label: `Pick values ${i}`, outputs: { total: '{{ trigger.body.order.total }}' } },
      'message.post': { label: `Tell the team ${i}`, key, url: 'http://127.0.0.1:9/chat', text: 'Order {{ trigger.body.order.id }}' },
      delay: { label: `Wait ${i}`, for: '1h' },
    }[kind] as Record<string, unknown>;
    return { id, type: kind as string, position, data };
  });
  const edges = nodes.slice(1).map((node, i) => ({ id: `e${i}`, source: `s${i}`, target: node.id }));
  return { format: 'onceflow/v1', name: `Large flow (${steps} steps)`, sampleInput: { id: 'evt_1', order: { id: '4417', total: 120 } }, nodes, edges };
}
