/**
 * Access is decided on the route the router matched, so no spelling of a URL reaches a
 * guarded route without a session; only names of this server are served (DNS rebinding);
 * browser changes must come from this server's own pages.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { hookUrl, startApp } from '../testing/app-harness.ts';
import { createSqliteDatabase } from '../testing/databases.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';

interface RawAnswer {
  status: number;
  text: string;
}

/** Sends the path exactly as written: fetch() would normalise `/./`, `/../` and more. */
function raw(base: string, method: string, path: string, options: { body?: string; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = Buffer.byteLength(options.body);
    }
    const request = http.request({ host: hostname, port, method, path, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Every way found of spelling a path so that a router might decode it to `path`. */
function spellings(path: string): string[] {
  const [, first = '', rest = ''] = /^\/([^/]+)(.*)$/.exec(path)!;
  const encodeAll = (text: string) => [...text].map((char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
  return [
    path,
    `/%${first.charCodeAt(0).toString(16)}${first.slice(1)}${rest}`,
    `/${encodeAll(first)}${rest}`,
    `/${encodeAll(first).toUpperCase()}${rest}`,
    `/${first.toUpperCase()}${rest}`,
    `/${first[0]!.toUpperCase()}${first.slice(1)}${rest}`,
    `//${first}${rest}`,
    `/${first}/${rest}`,
    `/./${first}${rest}`,
    `/${first}/.${rest}`,
    `/x/../${first}${rest}`,
    `/${first}/x/..${rest}`,
    `/%2e/${first}${rest}`,
    `/${first}%2f${rest.slice(1)}`,
    `/${first}.${rest}`,
    `${path}.`,
    `/${first};a=b${rest}`,
    `${path};a=b`,
    `${path}?x=1`,
    `${path}#frag`,
    `/${first}%00${rest}`,
    `/${first}%20${rest}`,
  ];
}

const SECRET_BODY = JSON.stringify({ name: 'STOLEN', value: 'attacker' });

describe('guarded routes with an admin password', () => {
  const database = createSqliteDatabase();
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    server = await startApp(database.url, { HOST: '0.0.0.0', ONCEFLOW_ADMIN_PASSWORD: 'correct horse battery', ONCEFLOW_SANDBOX: '1' });
    base = server.url.replace('0.0.0.0', '127.0.0.1');
    await server.services.secrets.set('API_TOKEN', 'tok_live_do_not_show');
  });
  afterAll(async () => {
    await server?.stop();
    await database.drop();
  });

  const guarded: { method: string; path: string; body?: string }[] = [
    { method: 'POST', path: '/trpc/secrets.set', body: SECRET_BODY },
    { method: 'GET', path: '/trpc/secrets.list' },
    { method: 'GET', path: '/trpc/flows.list' },
    { method: 'GET', path: '/sandbox' },
    { method: 'GET', path: '/sandbox/ledger' },
    { method: 'GET', path: '/sandbox/email/messages' },
  ];

  it('refuses every spelling of every guarded route, with every method', async () => {
    const reached: string[] = [];
    for (const route of guarded) {
      for (const path of spellings(route.path)) {
        for (const method of [route.method, 'HEAD', 'OPTIONS', 'GET', 'POST', 'PUT', 'DELETE']) {
          const body = method === 'HEAD' ? undefined : route.body ?? (method === 'GET' ? SECRET_BODY : undefined);
          const answer = await raw(base, method, path, { body });
          // An unknown GET may be answered with the web app's page (it shows the login);
          // anything else that succeeds, or any data, means the route was reached.
          const appShell = method === 'GET' && /^<!doctype html>/i.test(answer.text);
          if ((answer.status < 300 && !appShell) || /API_TOKEN|STOLEN|"receivers"|"entries"|"messages":\[/.test(answer.text)) {
            reached.push(`${method} ${path} → ${answer.status}`);
          }
        }
      }
    }
    expect(reached).toEqual([]);
    expect((await server.services.secrets.list()).map((secret) => secret.name)).toEqual(['API_TOKEN']);
  });

  it('answers the plain guarded address 401 without a session and 200 with one', async () => {
    expect((await raw(base, 'POST', '/trpc/secrets.set', { body: SECRET_BODY })).status).toBe(401);
    expect((await raw(base, 'HEAD', '/sandbox/ledger')).status).toBe(401);
    const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'correct horse battery' }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect((await raw(base, 'GET', '/sandbox/ledger', { headers: { cookie } })).status).toBe(200);
    expect((await raw(base, 'GET', '/trpc/secrets.list', { headers: { cookie } })).status).toBe(200);
  });

  it('keeps open only webhooks, health, login and the stand-in receivers that steps call', async () => {
    expect((await raw(base, 'GET', '/healthz')).status).toBe(200);
    expect((await raw(base, 'GET', '/auth/session')).text).toContain('"required":true');
    expect((await raw(base, 'POST', '/auth/login', { body: '{"password":"nope"}' })).status).toBe(401);
    const charge = await raw(base, 'POST', '/sandbox/payments/charges', { body: '{"amount":1}', headers: { 'idempotency-key': 'guard-1' } });
    expect(charge.status).toBeLessThan(300);
    const { id: flowId } = await server.services.flows.import(webhookEffectFlow('http://127.0.0.1:9'));
    const hook = new URL(await hookUrl(server, flowId));
    expect((await raw(base, 'POST', hook.pathname, { body: '{"id":"evt-guard"}' })).status).toBe(202);
  });
});

describe('names this server answers to', () => {
  const database = createSqliteDatabase();
  let server: RunningServer;
  let port: string;

  beforeAll(async () => {
    server = await startApp(database.url, { ONCEFLOW_PUBLIC_URL: 'https://onceflow.example.com' });
    port = new URL(server.url).port;
  });
  afterAll(async () => {
    await server?.stop();
    await database.drop();
  });

  it('refuses a foreign Host on the app, /trpc and /sandbox, in plain words', async () => {
    for (const path of ['/trpc/secrets.list', '/', '/flows/abc', '/sandbox/ledger', '/sandbox', '/auth/session']) {
      const answer = await raw(server.url, 'GET', path, { headers: { host: `attacker.example:${port}` } });
      expect(answer.status, path).toBe(421);
      expect(answer.text).toContain('does not answer to the name');
    }
    for (const host of ['127.0.0.1.attacker.example', 'localhost.attacker.example', '127.0.0.1@attacker.example', '[::ffff:7f00:1]', '0.0.0.0']) {
      expect((await raw(server.url, 'GET', '/trpc/secrets.list', { headers: { host } })).status, host).toBe(421);
    }
  });

  it('serves loopback names and the public URL, and webhooks and health under any name', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST.', `app.localhost:${port}`, `[::1]:${port}`, 'onceflow.example.com']) {
      expect((await raw(server.url, 'GET', '/trpc/secrets.list', { headers: { host } })).status, host).toBe(200);
    }
    expect((await raw(server.url, 'GET', '/healthz', { headers: { host: 'attacker.example' } })).status).toBe(200);
    const { id: flowId } = await server.services.flows.import(webhookEffectFlow('http://127.0.0.1:9'));
    const hook = new URL(await hookUrl(server, flowId));
    expect((await raw(server.url, 'POST', hook.pathname, { body: '{"id":"evt-any-host"}', headers: { host: 'tunnel.example.net' } })).status).toBe(202);
  });

  it('accepts changes from browsers only when they come from a page of this server', async () => {
    const set = (headers: Record<string, string>) => raw(server.url, 'POST', '/trpc/secrets.set', { body: SECRET_BODY, headers });
    expect((await set({ origin: 'http://attacker.example' })).status).toBe(403);
    expect((await set({ origin: 'null' })).status).toBe(403);
    expect((await set({ origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await server.services.secrets.list()).map((secret) => secret.name)).toEqual([]);
    expect((await set({ origin: `http://localhost:${port}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    // Programs (the CLI, curl) send no Origin.
    expect((await set({})).status).toBe(200);
  });
});
