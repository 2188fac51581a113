/**
 * The `onceflow` command against a real server process: import/export round trip, runs
 * with --wait and their exit codes, and the one-sentence errors on bad input.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from './testing/databases.ts';
import { invoiceFlow } from './testing/engine-harness.ts';
import { startReceiver, type Receiver } from './testing/receiver.ts';
import { freePort, startServerProcess, type ServerProcess } from './testing/server-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'docs/examples/order-invoice.json');

function onceflow(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('onceflow CLI', () => {
  const database = createSqliteDatabase();
  let server: ServerProcess;
  let receiver: Receiver;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-cli-'));

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

  it('imports the design example and exports the same nodes and edges, printing the webhook URL', async () => {
    const imported = await onceflow(['import', EXAMPLE, '--json'], env);
    expect(imported.code).toBe(0);
    const { id, webhooks } = JSON.parse(imported.stdout) as { id: string; webhooks: { nodeId: string; url: string }[] };
    expect(id).toMatch(/^flow_/);
    expect(webhooks).toHaveLength(1);
    expect(webhooks[0]!.url).toMatch(new RegExp(`^${server.url}/hooks/[A-Za-z0-9_-]{32}$`));

    const exported = await onceflow(['export', id], env);
    expect(exported.code).toBe(0);
    const original = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
    const back = JSON.parse(exported.stdout);
    expect(back.nodes).toEqual(original.nodes);
    expect(back.edges).toEqual(original.edges);

    const list = await onceflow(['flows', 'list'], env);
    expect(list.stdout).toContain(id);
  });

  it('runs a flow with --wait, shows its timeline, and says the outcome in the exit code', async () => {
    const file = join(dir, 'invoice.json');
    writeFileSync(file, JSON.stringify(invoiceFlow(receiver.url)));
    const { stdout } = await onceflow(['import', file], env);
    const flowId = stdout.trim().split('\n')[0]!;
    const ran = await onceflow(['run', flowId, '--input', '{"order":{"id":"CLI-1","total":3}}', '--wait', '--json'], env);
    expect(ran.code).toBe(0);
    const view = JSON.parse(ran.stdout);
    expect(view.run.status).toBe('succeeded');

    const shown = await onceflow(['runs', 'show', view.run.id, '--json'], env);
    const types = (JSON.parse(shown.stdout).timeline as { type: string }[]).map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['run.queued', 'run.started', 'step.started', 'step.succeeded', 'run.succeeded']));

    receiver.behave = () => ({ kind: 'status', status: 404 });
    const failed = await onceflow(['run', flowId, '--input', '{"order":{"id":"CLI-2","total":3}}', '--wait'], env);
    receiver.behave = () => ({ kind: 'ok' });
    expect(failed.code).toBe(2);
    expect(failed.stdout).toContain('failed');
    const runId = /run_[a-z0-9]+/.exec(failed.stdout)![0];
    const rerun = await onceflow(['rerun', runId, '--wait'], env);
    expect(rerun.code).toBe(0);

    const listed = await onceflow(['runs', 'list', flowId, '--status', 'succeeded', '--json'], env);
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(2);
  });

  it('refuses a file that cannot be opened with one sentence and a non-zero exit, storing nothing', async () => {
    const file = join(dir, 'future.json');
    writeFileSync(file, JSON.stringify({ format: 'onceflow/v9', name: 'From the future', nodes: [], edges: [] }));
    const before = (await onceflow(['flows', 'list', '--json'], env)).stdout;
    const result = await onceflow(['import', file], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/made by a newer Onceflow/);
    expect((await onceflow(['flows', 'list', '--json'], env)).stdout).toBe(before);
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{ nope');
    expect((await onceflow(['import', notJson], env)).stderr).toMatch(/is not valid JSON/);
  });

  it('imports a flow with fixable problems as an unpublished draft and lists what to fix', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify({ format: 'onceflow/v1', name: 'Broken', nodes: [{ id: 'a', type: 'http.request', data: {} }], edges: [] }));
    const result = await onceflow(['import', file, '--json'], env);
    expect(result.code).toBe(0);
    const { id, version } = JSON.parse(result.stdout) as { id: string; version: number | null };
    expect(version).toBeNull();
    const list = JSON.parse((await onceflow(['flows', 'list', '--json'], env)).stdout) as Array<{ id: string; latestVersion: number | null }>;
    expect(list.find((flow) => flow.id === id)?.latestVersion ?? null).toBeNull();
    const plain = await onceflow(['import', file], env);
    expect(plain.stderr).toMatch(/Imported as a draft, not published/);
    expect(plain.stderr).toMatch(/to fix: Step "a" needs a request/);
  });

  it('says in one line when the server is not reachable', async () => {
    const result = await onceflow(['flows', 'list'], { ONCEFLOW_URL: `http://127.0.0.1:${await freePort()}` });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^Onceflow is not reachable at http:\/\/127\.0\.0\.1:\d+; start it/);
  });

  it('refuses to start on a damaged database file, an unreachable PostgreSQL or a port in use', async () => {
    const corrupt = join(dir, 'corrupt.db');
    writeFileSync(corrupt, 'this is not a database'.repeat(100));
    const damaged = await onceflow(['start'], { DATABASE_URL: `file:${corrupt}`, PORT: String(await freePort()) });
    expect(damaged.code).toBe(1);
    expect(damaged.stderr.trim()).toMatch(/is damaged or is not an Onceflow database/);
    expect(readFileSync(corrupt, 'utf8')).toBe('this is not a database'.repeat(100));

    const unreachable = await onceflow(['start'], { DATABASE_URL: `postgresql://postgres@127.0.0.1:${await freePort()}/none`, PORT: String(await freePort()) });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim()).toMatch(/cannot be reached/);

    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    const busy = await onceflow(['start'], { DATABASE_URL: `file:${join(dir, 'busy.db')}`, PORT: String(port) });
    blocker.close();
    expect(busy.code).toBe(1);
    expect(busy.stderr.trim()).toMatch(new RegExp(`Port ${port} on 127.0.0.1 is already in use`));
  });
});
