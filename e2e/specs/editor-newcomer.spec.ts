/**
 * A flow built from scratch the way a newcomer builds one: a new flow from the list, its
 * trigger changed to a webhook, steps clicked in after the trigger (the second one goes in
 * between), a sandbox address picked for the request, and a run that sends its email
 * through the sandbox's mail server — which these browser tests start on a random port
 * (ONCEFLOW_SANDBOX_SMTP_PORT=0), so a step that assumed 2525 would fail here.
 */
import { expect, test } from '../fixtures/index.ts';
import { resetSandbox, sandboxEffects, seedFlow, trpcCall, waitForRun } from '../fixtures/api.ts';
import { boxOf } from '../fixtures/geometry.ts';
import { largeFlowDocument } from '../bench/large-flow.ts';
import { clickStep } from '../fixtures/canvas.ts';

// A laptop screen: the canvas between the palette and the side panel holds about two steps side by side.
test.use({ viewport: { width: 1280, height: 800 } });

const SAMPLE = { id: 'evt_newcomer_1', customer: { email: 'ann@example.test' } };

test('a newcomer builds a flow from scratch and runs it against the sandbox', async ({ editor, flowList, page, request, baseURL }) => {
  await resetSandbox(request);
  const sandbox = await trpcCall<{ on: boolean; smtp: { host: string; port: number } }>(request, 'sandboxAddresses', undefined, 'query');
  expect(sandbox.on).toBe(true);

  await flowList.open();
  await flowList.createFlow('My first flow');
  await expect(editor.node('trigger.manual')).toHaveCount(1);
  const flowId = new URL(page.url()).pathname.split('/').at(-1)!;

  // Choosing a webhook trigger on a new flow replaces its Manual trigger: one trigger, no error.
  await editor.paletteItem('Webhook trigger').click();
  await expect(editor.node('trigger.webhook')).toHaveCount(1);
  await expect(editor.node('trigger.manual')).toHaveCount(0);
  await expect(page.getByTestId('node.problem')).toHaveCount(0);

  await page.getByRole('tab', { name: 'Sample input' }).click();
  await page.getByRole('textbox', { name: 'Sample input' }).fill(JSON.stringify(SAMPLE, null, 2));

  // The webhook is selected: Send email goes after it.
  await editor.paletteItem('Send email').click();
  const [hook, email] = [editor.node('trigger.webhook'), editor.node('email.send')];
  await expect(email).toHaveCount(1);
  // It landed beyond the right edge: the canvas pans just enough to show it, and the trigger stays in view.
  const canvas = await boxOf(editor.canvas());
  await expect.poll(async () => {
    const box = await boxOf(email);
    return canvas.x + canvas.width - (box.x + box.width);
  }).toBeGreaterThan(0);
  await expect.poll(async () => {
    const box = await boxOf(email);
    return canvas.x + canvas.width - (box.x + box.width);
  }).toBeLessThan(60);
  const trigger = await boxOf(hook);
  expect(trigger.x).toBeGreaterThanOrEqual(canvas.x);

  // Its mail server is the sandbox's, on the port it really took.
  await expect(page.getByText('Onceflow’s test mail server', { exact: false }).first()).toBeVisible();
  await editor.field('To').fill('{{ trigger.body.customer.email }}');
  await editor.field('From').fill('shop@example.com');
  await editor.field('Subject').fill('Welcome');
  await editor.keyField().fill('{{ trigger.body.id }}:welcome');

  // Click to add after the trigger, which already leads to the email: the request goes in between.
  await hook.click();
  await editor.paletteItem('HTTP request').click();
  const http = editor.node('http.request');
  await expect(http).toHaveCount(1);
  await expect(editor.edges()).toHaveCount(2);
  // Connections are announced by the steps' labels.
  await expect(page.getByRole('group', { name: 'Connection from Webhook to HTTP request' })).toHaveCount(1);
  await expect(page.getByRole('group', { name: 'Connection from HTTP request to Send email' })).toHaveCount(1);
  await expect(page.getByRole('group', { name: 'Connection from Webhook to Send email' })).toHaveCount(0);

  // The URL field offers the sandbox's receivers.
  await page.getByTestId('inspector').getByRole('button', { name: 'Sandbox addresses' }).click();
  await page.getByRole('button', { name: /Sandbox: payments \(charges\) — honours keys/ }).click();
  await expect(editor.field('URL')).toHaveValue(`${baseURL}/sandbox/payments/charges`);
  await editor.keyField().fill('{{ trigger.body.id }}:charge');

  await editor.waitSaved();
  const draft = await trpcCall<{ draft: { nodes: Array<{ type: string; data: Record<string, unknown> }>; edges: Array<{ source: string; target: string }> } }>(request, 'flows.get', { id: flowId }, 'query');
  expect(draft.draft.nodes.map((node) => node.type).sort()).toEqual(['email.send', 'http.request', 'trigger.webhook']);
  expect(draft.draft.nodes.find((node) => node.type === 'email.send')?.data.smtp).toEqual({ host: sandbox.smtp.host, port: sandbox.smtp.port, secure: false });
  expect(draft.draft.nodes.find((node) => node.type === 'http.request')?.data).toMatchObject({ request: { method: 'POST' }, receiverKeyHeader: 'Idempotency-Key' });

  // A test run: the stand-ins get the charge and the email, the sandbox nothing.
  await page.getByRole('button', { name: 'Test run' }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  const runId = new URL(page.url()).pathname.split('/').at(-1)!;
  expect(await waitForRun(request, runId, ['succeeded', 'failed', 'needs_review'])).toBe('succeeded');
  const effects = await trpcCall<Array<{ receiver: string }>>(request, 'tests.standInEffects', { runId }, 'query');
  expect(effects.map((effect) => effect.receiver).sort()).toEqual(['email', 'payments']);
  expect(await sandboxEffects(request, 'email')).toBe(0);
  expect(await sandboxEffects(request, 'payments')).toBe(0);
});

test('Tab reaches every step of an ordinary flow, also those off screen', async ({ editor, page, request }) => {
  const steps = 24;
  const flowId = await seedFlow(request, { ...largeFlowDocument(steps), name: 'Wider than the screen' });
  await editor.open(flowId);
  const first = page.locator('.react-flow__node[data-id="s0"]');
  await expect(first).toBeVisible();
  // Opened at its start at full size: most steps lie beyond the edge.
  await expect(page.locator('.react-flow__node[data-id="s19"]')).not.toBeInViewport();

  await first.focus();
  const reached = new Set<string>();
  for (let press = 0; press < steps + 5 && reached.size < steps; press++) {
    const id = await page.evaluate(() => document.activeElement?.closest('.react-flow__node')?.getAttribute('data-id') ?? null);
    if (id) reached.add(id);
    await page.keyboard.press('Tab');
  }
  expect([...reached].sort()).toEqual(Array.from({ length: steps }, (_, i) => `s${i}`).sort());
  // The step Tab lands on is brought into view.
  await expect(page.locator(`.react-flow__node[data-id="s${steps - 1}"]`)).toBeInViewport();
});

test('a trigger somebody changed stays when another kind is chosen, and the Manual trigger says how to swap it', async ({ editor, page, request }) => {
  const flowId = await seedFlow(request, {
    format: 'onceflow/v1',
    name: 'Two triggers on purpose',
    nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Start' } }],
    edges: [],
  });
  await editor.open(flowId);
  await clickStep(editor.node('trigger.manual'));
  await expect(page.getByTestId('inspector')).toContainText('it takes this trigger’s place');
  await page.getByTestId('inspector.label').fill('Start by hand');
  await expect(page.getByTestId('inspector')).not.toContainText('it takes this trigger’s place');
  await editor.paletteItem('Schedule trigger').click();
  await expect(editor.node('trigger.manual')).toHaveCount(1);
  await expect(editor.node('trigger.schedule')).toHaveCount(1);
});

test('in a big flow, drawn only where in view, "Go to step" reaches every step from the keyboard', async ({ editor, page, request }) => {
  const flowId = await seedFlow(request, { ...largeFlowDocument(120), name: 'Big flow for the keyboard' });
  await editor.open(flowId);
  await expect(page.locator('.react-flow__node[data-id="s0"]')).toBeVisible();
  const far = page.locator('.react-flow__node[data-id="s101"]');
  await expect(far).toHaveCount(0);

  const finder = page.getByLabel('Go to step');
  await finder.focus();
  await finder.selectOption({ label: 'Pick values 101 (Transform)' });
  await expect(far).toBeInViewport();
  await expect(far).toBeFocused();
  await expect(page.getByTestId('inspector').getByLabel('Label', { exact: true })).toHaveValue('Pick values 101');
  // From there Tab goes on to the steps drawn around it.
  await page.keyboard.press('Tab');
  await expect(page.locator('.react-flow__node:focus')).toHaveCount(1);
});
