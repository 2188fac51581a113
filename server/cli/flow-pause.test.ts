/**
 * `onceflow flows pause|resume` against a real server process and a real receiver:
 * deliveries while paused are held (and listed as held), Resume runs each once.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../testing/databases.ts';
import { postJson } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { startServerProcess, trpc, type ServerProcess } from '../testing/server-process.ts';
import { until } from '../testing/wait-for.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function onceflow(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('onceflow flows pause / resume', () => {
  const database = createSqliteDatabase();
  let server: ServerProcess;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startServerProcess({ DATABASE_URL: database.url, ONCEFLOW_POLL_MS: '30' });
    receiver = await startReceiver({ honoursKeys: true });
  });
  afterAll(async () => {
    await server?.kill();
    await receiver?.close();
    await database.drop();
  });

  it('pauses, lists held runs, resumes and every event runs once', async () => {
    const env = { ONCEFLOW_URL: server.url };
    const { id: flowId, triggers } = await trpc<{ id: string; triggers: { hookId: string }[] }>(server.url, 'flows.import', { document: webhookEffectFlow(receiver.url) });
    const paused = await onceflow(['flows', 'pause', flowId], env);
    expect(paused).toMatchObject({ code: 0, stderr: '' });
    expect(paused.stdout).toContain('Paused — 0 events waiting.');

    const url = `${server.url}/hooks/${triggers[0]!.hookId}`;
    for (const id of ['evt_1', 'evt_2', 'evt_1']) expect([200, 202]).toContain((await postJson(url, { id })).status);
    const held = await onceflow(['runs', 'list', flowId, '--status', 'held'], env);
    expect(held.stdout.trim().split('\n')).toHaveLength(2);
    expect(held.stdout).toContain('\theld\t');
    expect(receiver.calls).toHaveLength(0);

    const resumed = await onceflow(['flows', 'resume', flowId], env);
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(resumed.stdout).toContain('Resumed: 2 events released');
    await until('both runs to succeed', async () => {
      const { runs } = await trpc<{ runs: { status: string }[] }>(server.url, 'runs.list', { flowId }, 'query');
      return runs.length === 2 && runs.every((run) => run.status === 'succeeded');
    }, { timeoutMs: 20_000, everyMs: 50 });
    expect(receiver.effects.size).toBe(2);
    expect([...receiver.effects.values()]).toEqual([1, 1]);
  }, 60_000);

  it('says in one sentence when the flow does not exist, and lists the commands in help', async () => {
    const missing = await onceflow(['flows', 'pause', 'flow_nope'], { ONCEFLOW_URL: server.url });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim()).toContain('There is no flow with id flow_nope');
    const help = await onceflow(['--help'], {});
    expect(help.stdout).toContain('flows pause <flowId>');
    expect(help.stdout).toContain('flows resume <flowId> [--drop-missed-fires]');
  }, 30_000);
});
