/**
 * The fix scripted on the command line, against a real server process and a real receiver:
 * a run fails on v1, `import <file> --flow` publishes the fix as v2, `rerun --version
 * original` fails the same way, `rerun` (latest) succeeds with the invoice stopped as a
 * duplicate, and `replay --input` acts for a new order id and stops for the same one.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../testing/databases.ts';
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

function orderFlow(receiverUrl: string, chargePath: string) {
  const effect = (id: string, label: string, path: string) => ({
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: {
      label, sideEffect: true, key: `{{ trigger.body.order.id }}:${id}`, retry: { max: 0 },
      request: { method: 'POST', url: `${receiverUrl}${path}`, headers: { 'content-type': 'application/json' }, body: `{"ref": "{{ trigger.body.order.id }}:${id}"}` },
    },
  });
  return {
    format: 'onceflow/v1',
    name: 'Invoice and charge',
    sampleInput: { order: { id: '1' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Order placed' } },
      effect('invoice', 'Create invoice', '/invoices'),
      effect('charge', 'Charge the card', chargePath),
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }, { id: 'e2', source: 'invoice', target: 'charge' }],
  };
}

describe('onceflow rerun, replay and import --flow on the fixed version', () => {
  const database = createSqliteDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-cli-version-'));
  let server: ServerProcess;
  let receiver: Receiver;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startServerProcess({ DATABASE_URL: database.url });
    receiver = await startReceiver({ honoursKeys: false });
    receiver.behave = (call) => (call.path === '/broken' ? { kind: 'status', status: 422 } : { kind: 'ok' });
    env = { ONCEFLOW_URL: server.url };
  });
  afterAll(async () => {
    await server?.kill();
    await receiver?.close();
    await database.drop();
  });

  const invoices = (order: string) => receiver.calls.filter((call) => call.path === '/invoices' && (call.body as { ref?: string }).ref === `${order}:invoice`).length;

  it('publishes a fix as v2, reruns on the version it ran or the latest, and replays with an edited input', async () => {
    const v1 = join(dir, 'v1.json');
    const v2 = join(dir, 'v2.json');
    writeFileSync(v1, JSON.stringify(orderFlow(receiver.url, '/broken')));
    writeFileSync(v2, JSON.stringify(orderFlow(receiver.url, '/charges')));
    const flowId = (await onceflow(['import', v1], env)).stdout.trim().split('\n')[0]!;
    const failed = await onceflow(['run', flowId, '--input', '{"order":{"id":"CLI-1"}}', '--wait', '--json'], env);
    expect(failed.code).toBe(2);
    const runId = (JSON.parse(failed.stdout) as { run: { id: string } }).run.id;

    const published = await onceflow(['import', v2, '--flow', flowId], env);
    expect(published).toMatchObject({ code: 0, stdout: `Published ${flowId} as version 2.\n` });

    const original = await onceflow(['rerun', runId, '--version', 'original', '--wait'], env);
    expect(original.code).toBe(2);
    expect(original.stdout).toMatch(/failed \(attempt 2, flow flow_\w+ v1,/);

    const latest = await onceflow(['rerun', runId, '--wait'], env);
    expect(latest.code).toBe(0);
    expect(latest.stdout).toMatch(/succeeded \(attempt 3, flow flow_\w+ v2,/);
    expect(invoices('CLI-1')).toBe(1);

    const wrong = await onceflow(['rerun', runId, '--version', 'newest'], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('use --version latest');

    // A new order id renders new keys, so the replay acts; the same id stops as duplicates.
    const edited = await onceflow(['replay', runId, '--input', '-', '--wait', '--json'], env, '{"order":{"id":"CLI-2"}}');
    expect(edited.code).toBe(0);
    expect(invoices('CLI-2')).toBe(1);
    const same = await onceflow(['replay', runId, '--wait', '--json'], env);
    expect(same.code).toBe(0);
    const view = JSON.parse(same.stdout) as { run: { version: number }; steps: { nodeId: string; status: string }[] };
    expect(view.run.version).toBe(2);
    expect(view.steps.find((step) => step.nodeId === 'invoice')?.status).toBe('duplicate');
    expect(invoices('CLI-1')).toBe(1);
  });
});
