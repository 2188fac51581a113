/**
 * Finding a run by what it did, through the API the runs page uses (tRPC over HTTP) and
 * the command line, on each database: a run started with {order:{id:4417}} is found by
 * `order.id = 4417` and by its step's key, a webhook run by a value in its body (not its
 * headers), a replay whose step was stopped as a duplicate by the same key, and a failed
 * run by the step it failed at, named as the page shows it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTRPCClient, httpLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { hookUrl, startApp, waitForRunStatus } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { postJson } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import type { AppRouter } from './router.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Order paid → Create invoice, started by hand or by a webhook; the receiver refuses order
 * 9999, so that run fails at the invoice.
 */
function orderFlow(receiverUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Order paid',
    sampleInput: { id: 'evt_1', order: { id: 1 } },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'invoice', type: 'http.request', position: { x: 300, y: 0 }, data: {
        label: 'Create invoice', sideEffect: true, key: '{{ trigger.body.order.id }}:invoice', receiverKeyHeader: 'Idempotency-Key',
        request: { method: 'POST', url: `${receiverUrl}/invoices`, body: '{"ref": "{{ trigger.body.order.id }}"}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'invoice' }],
  };
}

function onceflow(args: string[], url: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ONCEFLOW_URL: url, ONCEFLOW_TOKEN: '' }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.each(testDatabases())('finding runs by what they did on $name', (kind) => {
  let database: TestDatabase;
  let server: RunningServer;
  let receiver: Receiver;
  let client: ReturnType<typeof createTRPCClient<AppRouter>>;

  beforeAll(async () => {
    database = await kind.create();
    server = await startApp(database.url);
    receiver = await startReceiver({ honoursKeys: true });
    receiver.behave = (call) => (call.ref === '9999' ? { kind: 'status', status: 422 } : { kind: 'ok' });
    client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${server.url}/trpc` })] });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it('finds runs by input value, by key in any scope and by the step they failed at', async () => {
    const imported = await server.services.flows.import(orderFlow(receiver.url));
    expect(imported.problems.filter((problem) => problem.severity === "error")).toEqual([]);
    const flowId = imported.id;
    const started = await client.runs.start.mutate({ flowId, input: { order: { id: 4417 } } });
    const other = await client.runs.start.mutate({ flowId, input: { order: { id: 4418 } } });
    const failing = await client.runs.start.mutate({ flowId, input: { order: { id: 9999 } } });
    expect((await waitForRunStatus(server, started.runId)).status).toBe('succeeded');
    expect((await waitForRunStatus(server, other.runId)).status).toBe('succeeded');
    expect((await waitForRunStatus(server, failing.runId)).status).toBe('failed');

    const ids = async (filter: Parameters<typeof client.runs.list.query>[0]) => (await client.runs.list.query(filter)).runs.map((run) => run.id);

    // The search box's words, and the same search as options.
    expect(await ids({ search: 'order.id = 4417' })).toEqual([started.runId]);
    expect(await ids({ search: 'trigger.body.order.id = "4417"' })).toEqual([started.runId]);
    expect(await ids({ search: 'key 4417:invoice' })).toEqual([started.runId]);
    expect(await ids({ key: '4417:invoice' })).toEqual([started.runId]);
    expect(await ids({ input: { path: 'order.id', value: '4418' } })).toEqual([other.runId]);
    expect(await ids({ search: 'order.id = 4419' })).toEqual([]);
    // The flow and status filters still apply.
    expect(await ids({ search: 'order.id = 4417', status: 'failed' })).toEqual([]);
    expect(await ids({ search: 'order.id = 4417', flowId })).toEqual([started.runId]);

    // A replay finds the key done: its step is stopped as a duplicate, and the key finds it too.
    const replay = await client.runs.replay.mutate({ runId: started.runId });
    expect((await waitForRunStatus(server, replay.runId)).status).toBe('succeeded');
    expect(receiver.effects.get('4417:invoice')).toBe(1);
    expect(await ids({ search: 'key 4417:invoice' })).toEqual([replay.runId, started.runId]);

    // A webhook run: its body is searched, its headers are not.
    const delivered = await postJson(await hookUrl(server, flowId), { id: 'evt_77', order: { id: 4417 } }, { 'x-shop': 'north' });
    expect(delivered.status).toBe(202);
    const hooked = delivered.body.runId as string;
    await waitForRunStatus(server, hooked);
    expect(await ids({ search: 'order.id = 4417' })).toEqual([hooked, replay.runId, started.runId]);
    expect(await ids({ search: 'id = evt_77' })).toEqual([hooked]);
    expect(await ids({ search: 'headers.x-shop = north' })).toEqual([]);

    // The step a run failed at, by its name (any case) or its id; a rerun clears it while it runs.
    expect(await ids({ search: 'failed at create invoice' })).toEqual([failing.runId]);
    expect(await ids({ failedStep: 'invoice' })).toEqual([failing.runId]);
    expect(await ids({ failedStep: 'Send receipt' })).toEqual([]);
    receiver.behave = () => ({ kind: 'ok' });
    await client.runs.rerun.mutate({ runId: failing.runId });
    expect((await waitForRunStatus(server, failing.runId, ['succeeded'])).status).toBe('succeeded');
    expect(await ids({ search: 'failed at Create invoice' })).toEqual([]);
    expect(await ids({ search: 'key 9999:invoice' })).toEqual([failing.runId]);

    // The command line: options combine, and a malformed --input is refused in a sentence.
    const listed = await onceflow(['runs', 'list', '--key', '4417:invoice', '--input', 'order.id=4417', '--json'], server.url);
    expect(listed.stderr).toBe('');
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((run) => run.id)).toEqual([hooked, replay.runId, started.runId]);
    const refused = await onceflow(['runs', 'list', '--input', 'order.id'], server.url);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('such as --input order.id=4417');
  });
});
