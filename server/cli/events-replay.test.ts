/**
 * `onceflow events replay <deliveryId>` against a real server process and a real receiver:
 * a webhook delivery starts a run that invoices once; replaying it with an edited order id
 * (`--input -`) renders a new key and acts; replaying it as it came stops as a duplicate;
 * a wrong `--version` is refused in plain words. On SQLite, and PostgreSQL when configured.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { startServerProcess, type ServerProcess } from '../testing/server-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function onceflow(args: string[], env: Record<string, string>, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ONCEFLOW_TOKEN: '', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(stdin ?? '');
  });
}

function invoiceFlow(receiverUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Invoice on payment',
    sampleInput: { id: 'evt_1', order: { id: '1' } },
    nodes: [
      { id: 'shop', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { label: 'Order paid', eventId: '{{ trigger.body.id }}' } },
      {
        id: 'invoice', type: 'http.request', position: { x: 0, y: 0 },
        data: {
          label: 'Create invoice', sideEffect: true, key: '{{ trigger.body.order.id }}:invoice', retry: { max: 0 },
          request: { method: 'POST', url: `${receiverUrl}/invoices`, headers: { 'content-type': 'application/json' }, body: '{"ref": "{{ trigger.body.order.id }}:invoice"}' },
        },
      },
    ],
    edges: [{ id: 'e1', source: 'shop', target: 'invoice' }],
  };
}

type RunJson = { run: { id: string; status: string; input: { body: { order: { id: string } } } }; steps: { nodeId: string; status: string; key?: string | null }[] };

describe.each(testDatabases())('onceflow events replay on $name', (kind) => {
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-cli-events-'));
  let database: TestDatabase;
  let server: ServerProcess;
  let receiver: Receiver;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await kind.create();
    server = await startServerProcess({ DATABASE_URL: database.url });
    receiver = await startReceiver({ honoursKeys: false });
    env = { ONCEFLOW_URL: server.url };
  });
  afterAll(async () => {
    await server?.kill();
    await receiver?.close();
    await database?.drop();
  });

  const invoices = (order: string) => receiver.calls.filter((call) => call.path === '/invoices' && (call.body as { ref?: string }).ref === `${order}:invoice`).length;

  it('acts for an edited order id and stops as a duplicate for the same input', async () => {
    const file = join(dir, 'flow.json');
    writeFileSync(file, JSON.stringify(invoiceFlow(receiver.url)));
    const flowId = (await onceflow(['import', file], env)).stdout.trim().split('\n')[0]!;
    const listed = JSON.parse((await onceflow(['events', 'list', flowId, '--json'], env)).stdout) as { triggers: { hookId: string }[] };
    const delivered = await fetch(`${server.url}/hooks/${listed.triggers[0]!.hookId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'evt_cli_1', order: { id: 'EV-1' } }),
    });
    expect(delivered.status).toBeLessThan(300);
    const inbox = JSON.parse((await onceflow(['events', 'list', flowId, '--json'], env)).stdout) as { deliveries: { id: string; runId: string }[] };
    const delivery = inbox.deliveries[0]!;
    // The delivery's own run invoices first, so the claim of EV-1:invoice is its.
    await expect.poll(async () => (JSON.parse((await onceflow(['runs', 'show', delivery.runId, '--json'], env)).stdout) as RunJson).run.status, { timeout: 30_000 }).toBe('succeeded');
    expect(invoices('EV-1')).toBe(1);

    // A new order id renders a new key, so the replay acts.
    const edited = await onceflow(['events', 'replay', delivery.id, '--input', '-', '--wait', '--json'], env, '{"id":"evt_cli_1","order":{"id":"EV-2"}}');
    expect(edited.stderr).toBe('');
    expect(edited.code).toBe(0);
    const actedRun = JSON.parse(edited.stdout) as RunJson;
    expect(actedRun.run.input.body.order.id).toBe('EV-2');
    expect(actedRun.steps.find((step) => step.nodeId === 'invoice')?.status).toBe('succeeded');
    expect(invoices('EV-2')).toBe(1);

    // The same input: its key was already done, so the step stops as a duplicate.
    const same = await onceflow(['events', 'replay', delivery.id, '--version', 'latest', '--wait', '--json'], env);
    expect(same.code).toBe(0);
    const stopped = JSON.parse(same.stdout) as RunJson;
    expect(stopped.steps.find((step) => step.nodeId === 'invoice')?.status).toBe('duplicate');
    expect(invoices('EV-1')).toBe(1);

    const plain = await onceflow(['events', 'replay', delivery.id], env);
    expect(plain).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Replayed as run run_\w+ on v1\.\n$/) as unknown });

    const wrong = await onceflow(['events', 'replay', delivery.id, '--version', 'newest'], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('use --version latest');
  });
});
