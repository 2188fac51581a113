/**
 * The sandbox's addresses are the ones it serves: every address in the directory, and
 * every receiver address README.md names, answers a POST on a real sandbox (anything but
 * 404); and a started server prints where its sandbox listens and tells the editor the same.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxApp, type SandboxApp } from '../testing/sandbox-app.ts';
import { startServerProcess, type ServerProcess } from '../testing/server-process.ts';
import { SANDBOX_ADDRESSES, SANDBOX_CRM_COLLECTION, sandboxStartupLine } from './directory.ts';

// The sandbox's own read-outs, which are GET routes rather than receivers.
const READ_OUTS = new Set(['/sandbox/ledger', '/sandbox/email/messages']);

/** Every `/sandbox/…` address README.md names, as written. */
function readmeSandboxAddresses(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  return [...new Set(readme.match(/\/sandbox\/[A-Za-z0-9_/<>-]+/g) ?? [])].map((address) => address.replace(/\/$/, ''));
}

describe('the sandbox directory', () => {
  let served: SandboxApp;
  beforeAll(async () => {
    served = await startSandboxApp({ smtp: false });
  });
  afterAll(async () => {
    await served?.close();
  });

  const post = (path: string) =>
    fetch(`${served.base}${path.replace(/^\/sandbox/, '')}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ref: 'directory-test', text: 'hello', amount: 1 }) });

  it('lists only addresses the sandbox serves', async () => {
    for (const address of SANDBOX_ADDRESSES) {
      const response = await post(address.path);
      expect(response.status, address.path).not.toBe(404);
    }
  });

  it('is named right in every README line that gives a receiver address', async () => {
    const addresses = readmeSandboxAddresses().filter((address) => !READ_OUTS.has(address));
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) {
      // `/sandbox/crm/<collection>` stands for any collection name.
      const concrete = address.replace('<collection>', 'deals');
      const listed = SANDBOX_ADDRESSES.some((known) => known.path === concrete) || SANDBOX_CRM_COLLECTION.test(concrete);
      expect(listed, `README names ${address}, which is not a sandbox receiver`).toBe(true);
      expect((await post(concrete)).status, address).not.toBe(404);
    }
  });

  it('reads, in one start-up line, where every receiver and the mail server listen', () => {
    const line = sandboxStartupLine({ baseUrl: 'http://127.0.0.1:3000', smtp: { host: '127.0.0.1', port: 40123 } });
    for (const address of SANDBOX_ADDRESSES) expect(line).toContain(`http://127.0.0.1:3000${address.path}`);
    expect(line).toContain('SMTP at 127.0.0.1:40123');
    expect(sandboxStartupLine(undefined)).toMatch(/^Sandbox: off/);
  });
});

describe('a started server', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({ ONCEFLOW_SANDBOX_SMTP_PORT: '0', DATABASE_URL: '' });
  }, 60_000);
  afterAll(async () => {
    await server?.kill();
  });

  it('prints where its sandbox listens, and tells the editor the same mail server', async () => {
    const response = await fetch(`${server.url}/trpc/sandboxAddresses`);
    expect(response.status).toBe(200);
    const answer = ((await response.json()) as { result: { data: { on: boolean; receivers: Array<{ label: string; url: string; keyHeader: string | null }>; smtp: { host: string; port: number } } } }).result.data;
    expect(answer.on).toBe(true);
    // Port 0 asked for a free port: the answer is the port actually taken, not the default.
    expect(answer.smtp.host).toBe('127.0.0.1');
    expect(answer.smtp.port).toBeGreaterThan(0);
    expect(answer.smtp.port).not.toBe(2525);
    expect(answer.receivers).toContainEqual({ receiver: 'payments', label: 'Sandbox: payments (charges) — honours keys', url: `${server.url}/sandbox/payments/charges`, keyHeader: 'Idempotency-Key' });
    expect(answer.receivers.map((receiver) => receiver.url)).toContain(`${server.url}/sandbox/chat/messages`);

    await expect.poll(() => server.output()).toContain('Sandbox: HTTP receivers at');
    const line = server.output().split('\n').find((text) => text.startsWith('Sandbox:'))!;
    expect(line).toContain(`${server.url}/sandbox/payments/charges`);
    expect(line).toContain(`SMTP at 127.0.0.1:${answer.smtp.port}`);
  });
});
