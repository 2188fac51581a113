/**
 * Access control when the app is exposed: no password, no start; with one, /trpc needs a
 * session or token while webhooks and /healthz stay open; failed logins slow down. And the
 * HTTP step never calls link-local metadata addresses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { startApp, hookUrl } from '../testing/app-harness.ts';
import { createSqliteDatabase } from '../testing/databases.ts';
import { postJson } from '../testing/http-client.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';
import { startEngine } from '../testing/engine-harness.ts';
import { createNetworkPolicy } from '../engine/network-policy.ts';

describe('access control', () => {
  const database = createSqliteDatabase();
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    server = await startApp(database.url, { HOST: '0.0.0.0', ONCEFLOW_ADMIN_PASSWORD: 'correct horse battery' });
    base = server.url.replace('0.0.0.0', '127.0.0.1');
  });
  afterAll(async () => {
    await server?.stop();
    await database.drop();
  });

  it('refuses to listen beyond loopback without an admin password, in one sentence', async () => {
    const other = createSqliteDatabase();
    await expect(startApp(other.url, { HOST: '0.0.0.0' })).rejects.toThrow(/^Onceflow will not listen on 0\.0\.0\.0 without a login: set ONCEFLOW_ADMIN_PASSWORD/);
    await other.drop();
  });

  it('asks for a session on /trpc, and lets webhooks and /healthz through', async () => {
    expect((await fetch(`${base}/trpc/flows.list`)).status).toBe(401);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const session = await fetch(`${base}/auth/session`).then((response) => response.json());
    expect(session).toEqual({ required: true, loggedIn: false });

    const wrong = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'nope' }) });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'correct horse battery' }) });
    expect(right.status).toBe(200);
    const setCookie = right.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(';')[0]!;
    expect((await fetch(`${base}/trpc/flows.list`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${base}/trpc/flows.list`, { headers: { cookie: 'onceflow_session=forged.token' } })).status).toBe(401);

    const { token } = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'correct horse battery', token: true }) }).then((response) => response.json() as Promise<{ token: string }>);
    expect((await fetch(`${base}/trpc/flows.list`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    const { id: flowId } = await server.services.flows.import(webhookEffectFlow('http://127.0.0.1:9'));
    const hook = (await hookUrl(server, flowId)).replace('0.0.0.0', '127.0.0.1');
    expect((await postJson(hook, { id: 'open-1' })).status).toBe(202);
  });

  it('slows down repeated failed logins', async () => {
    const attempt = async () => {
      const started = Date.now();
      await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'guess' }) });
      return Date.now() - started;
    };
    for (let index = 0; index < 4; index++) await attempt();
    expect(await attempt()).toBeGreaterThanOrEqual(900);
  });
});

describe('network policy of HTTP steps', () => {
  it('refuses link-local metadata addresses always, and holds to an allowlist when set', async () => {
    const open = createNetworkPolicy().checkUrl;
    await expect(open(new URL('http://169.254.169.254/latest/meta-data/'))).rejects.toThrow(/link-local/);
    await expect(open(new URL('http://[fe80::1]/'))).rejects.toThrow(/link-local/);
    await expect(open(new URL('http://127.0.0.1:1/'))).resolves.toBeUndefined();
    const held = createNetworkPolicy({ allow: 'api.example.com,*.stripe.com' }).checkUrl;
    await expect(held(new URL('https://api.stripe.com/v1'))).resolves.toBeUndefined();
    await expect(held(new URL('http://127.0.0.1/'))).rejects.toThrow(/not allowed/);
  });

  it('fails a step aimed at the metadata address without calling it', async () => {
    const database = createSqliteDatabase();
    const engine = await startEngine(database.url);
    try {
      const flowId = await engine.publish({
        format: 'onceflow/v1', name: 'Metadata', nodes: [
          { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
          { id: 'steal', type: 'http.request', position: { x: 100, y: 0 }, data: { request: { method: 'GET', url: 'http://169.254.169.254/latest/meta-data/iam' } } },
        ], edges: [{ id: 'e1', source: 'start', target: 'steal' }],
      });
      const run = await engine.runAndWait(flowId, {});
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/link-local/);
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});
