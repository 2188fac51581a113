/**
 * `import <file> --flow` with a changed key, against a real server process: without
 * `--yes` it prints what the change means for past runs and publishes nothing (exit 1);
 * with `--yes` it prints the same summary and publishes, and the version records it.
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

function onceflow(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ONCEFLOW_TOKEN: '', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function invoiceFlow(receiverUrl: string, key: string) {
  return {
    format: 'onceflow/v1',
    name: 'Invoices by key',
    sampleInput: { order: { id: '1', ref: 'A-1' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Order placed' } },
      { id: 'invoice', type: 'http.request', position: { x: 0, y: 0 }, data: { label: 'Create invoice', sideEffect: true, key, retry: { max: 0 }, request: { method: 'POST', url: `${receiverUrl}/invoices` } } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }],
  };
}

describe('onceflow import --flow with a changed key', () => {
  const database = createSqliteDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-cli-guard-'));
  let server: ServerProcess;
  let receiver: Receiver;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startServerProcess({ DATABASE_URL: database.url });
    receiver = await startReceiver({ honoursKeys: true });
    env = { ONCEFLOW_URL: server.url };
  });
  afterAll(async () => {
    await server?.kill();
    await receiver?.close();
    await database.drop();
  });

  it('prints the summary, refuses without --yes, publishes with it', { timeout: 90_000 }, async () => {
    const v1 = join(dir, 'v1.json');
    const v2 = join(dir, 'v2.json');
    writeFileSync(v1, JSON.stringify(invoiceFlow(receiver.url, '{{ trigger.body.order.id }}:invoice')));
    writeFileSync(v2, JSON.stringify(invoiceFlow(receiver.url, '{{ trigger.body.order.ref }}:invoice')));
    const flowId = (await onceflow(['import', v1], env)).stdout.trim().split('\n')[0]!;
    for (const order of ['{"order":{"id":"7","ref":"B-7"}}', '{"order":{"id":"8","ref":"8"}}']) {
      expect((await onceflow(['run', flowId, '--input', order, '--wait'], env)).code).toBe(0);
    }

    const refused = await onceflow(['import', v2, '--flow', flowId], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Create invoice: {{ trigger.body.order.id }}:invoice → {{ trigger.body.order.ref }}:invoice');
    expect(refused.stderr).toContain('1 past event would get a new key and would act again if replayed or sent again.');
    expect(refused.stderr).toContain('e.g. 7:invoice → B-7:invoice');
    expect(refused.stderr).toContain('run the command again with --yes');
    expect(refused.stdout).toBe('');

    const confirmed = await onceflow(['import', v2, '--flow', flowId, '--yes'], env);
    expect(confirmed).toMatchObject({ code: 0, stdout: `Published ${flowId} as version 2.\n` });
    expect(confirmed.stderr).toContain('1 past event keeps the same key');
    const exported = await onceflow(['export', flowId], env);
    expect(JSON.parse(exported.stdout).nodes[1].data.key).toBe('{{ trigger.body.order.ref }}:invoice');
  });
});
