/**
 * The `onceflow` command as a person meets it, against real server processes over HTTP:
 * `--help` lists every command the table dispatches, `run --wait` says what the trigger
 * did, and a failed call prints the server's sentence, never a JSON body.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../testing/databases.ts';
import { startServerProcess, type ServerProcess } from '../testing/server-process.ts';
import { COMMANDS } from './commands.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DECLINED = 'No invoice was created: the card was declined.';

function onceflow(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ONCEFLOW_TOKEN: '', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A receiver that refuses every request the way payment APIs do: a status and a JSON error. */
async function startRefusingReceiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'card_error', message: DECLINED } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function chargeFlow(receiverUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Charge',
    sampleInput: { order: { id: '1' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Order placed' } },
      { id: 'charge', type: 'http.request', position: { x: 200, y: 0 }, data: {
        label: 'Charge the card', sideEffect: true, key: '{{ trigger.body.order.id }}:charge', retry: { max: 0 },
        request: { method: 'POST', url: `${receiverUrl}/charges`, headers: { 'content-type': 'application/json' }, body: '{}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'charge' }],
  };
}

describe('onceflow --help', () => {
  it('lists every command the CLI dispatches, sandbox set and every other action included', async () => {
    const help = await onceflow(['--help']);
    expect(help.code).toBe(0);
    for (const command of COMMANDS) {
      for (const [syntax, meaning] of command.help) {
        expect(help.stdout).toContain(syntax);
        expect(help.stdout).toContain(meaning);
      }
    }
    // The actions dispatched inside a command, checked by name so a table edit cannot hide one.
    for (const action of ['sandbox ledger', 'sandbox reset', 'sandbox set', 'secrets set', 'secrets list', 'secrets delete',
      'events list', 'events replay', 'runs list', 'runs show', 'flows list', 'rerun', 'resolve', 'status', 'login', 'worker', 'migrate']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${action}\\b`, 'm'));
    }
    expect((await onceflow([])).stdout).toBe(help.stdout);
    expect((await onceflow(['help'])).stdout).toBe(help.stdout);
  });

  it('answers an unknown command or action with the help lines for it', async () => {
    const unknown = await onceflow(['publish']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Unknown command "publish"\.\nUsage: onceflow <command>/);
    const sandbox = await onceflow(['sandbox']);
    expect(sandbox.code).toBe(1);
    expect(sandbox.stderr).toContain('onceflow sandbox set <payments|');
  });
});

describe('onceflow against a running server', () => {
  const database = createSqliteDatabase();
  let server: ServerProcess;
  let receiver: { url: string; server: Server };
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-cli-words-'));

  beforeAll(async () => {
    server = await startServerProcess({ DATABASE_URL: database.url });
    receiver = await startRefusingReceiver();
    env = { ONCEFLOW_URL: server.url };
  });
  afterAll(async () => {
    await server?.kill();
    receiver?.server.close();
    await database.drop();
  });

  it('run --wait says the trigger started the run and the failure in the words the web app uses', async () => {
    const file = join(dir, 'charge.json');
    writeFileSync(file, JSON.stringify(chargeFlow(receiver.url)));
    const flowId = (await onceflow(['import', file], env)).stdout.trim().split('\n')[0]!;
    const ran = await onceflow(['run', flowId, '--input', '{"order":{"id":"CLI-W1"}}', '--wait'], env);
    expect(ran.code).toBe(2);
    const lines = ran.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Run #\d+ run_\w+: failed \(attempt 1, flow flow_\w+ v1, started by hand\)$/);
    expect(lines[1]).toBe(`  The receiver refused the request (422): ${DECLINED}`);
    expect(lines).toContain('  started     Order placed');
    expect(ran.stdout).toMatch(/^ {2}failed {6}Charge the card\b/m);
    expect(ran.stdout).not.toContain('not_reached');
    expect(ran.stdout).not.toContain('{');
  });

  it('prints the server sentence for a refused input, an oversized request, an unknown run and an unknown host name', async () => {
    const status = await onceflow(['runs', 'list', '--status', 'bogus'], env);
    expect(status.code).toBe(1);
    expect(status.stderr.trim()).toMatch(/^status: Invalid option: expected one of "queued"/);

    const big = join(dir, 'big.json');
    writeFileSync(big, JSON.stringify({ format: 'onceflow/v1', name: 'x'.repeat(1_100_000), nodes: [], edges: [] }));
    const tooLarge = await onceflow(['import', big], env);
    expect(tooLarge.code).toBe(1);
    expect(tooLarge.stderr.trim()).toBe('What was sent is larger than the server takes (at most 1 MiB); send something smaller.');

    const missing = await onceflow(['runs', 'show', 'run_nothing'], env);
    expect(missing.stderr.trim()).toBe('There is no run with id run_nothing.');
    // The same server under a name it does not answer to: the access guard's refusal (421)
    // is not a tRPC answer, and its sentence is what gets printed.
    const port = new URL(server.url).port;
    const unknownName = await onceflow(['flows', 'list'], { ONCEFLOW_URL: `http://[::ffff:127.0.0.1]:${port}` });
    expect(unknownName.code).toBe(1);
    expect(unknownName.stderr.trim()).toMatch(/^This Onceflow server does not answer to the name "\[::ffff:7f00:1\]:\d+"\. If that is how people reach it, add the address to ONCEFLOW_PUBLIC_URL\.$/);
    for (const result of [status, tooLarge, missing, unknownName]) expect(result.stderr).not.toMatch(/[{}]/);
  });
});

describe('onceflow against a server that asks for a login', () => {
  const database = createSqliteDatabase();
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess({ DATABASE_URL: database.url, ONCEFLOW_ADMIN_PASSWORD: 'correct horse battery staple' });
  });
  afterAll(async () => {
    await server?.kill();
    await database.drop();
  });

  it('says a login is needed, and that a wrong password is wrong, in sentences', async () => {
    const listed = await onceflow(['flows', 'list'], { ONCEFLOW_URL: server.url });
    expect(listed.code).toBe(1);
    expect(listed.stderr.trim()).toBe('The server asks for a login; set ONCEFLOW_TOKEN or run `onceflow login`.');
    const wrong = await onceflow(['login'], { ONCEFLOW_URL: server.url, ONCEFLOW_ADMIN_PASSWORD: 'nope', XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'onceflow-config-')) });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toBe('That password is not right.');
  });
});
