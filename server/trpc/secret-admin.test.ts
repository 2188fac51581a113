/**
 * The Secrets page's procedures over real HTTP, on each database: names, change times and
 * the flows that use each secret; add, replace, delete; plain-word refusals; the login
 * guard; and that no answer ever carries a value, in any form the masker knows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { startApp } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';

const TOKEN = 'tok-Ünïcode-7f3a9c2e51';
const REPLACED = 'second-value-b81d44e0aa';
const LATE = 'set-just-now-5c0ffee9d1';

/** Every text a value could be read back as from an answer. */
function readableForms(value: string): string[] {
  return [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), Buffer.from(value).toString('base64').replace(/=+$/, '')];
}

/** A manual trigger and an HTTP call that names `secret` in a header (and `body` in its body). */
function flowUsing(name: string, header: string, body = '') {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: {},
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      {
        id: 'call',
        type: 'http.request',
        position: { x: 300, y: 0 },
        data: { label: 'Call', request: { method: 'GET', url: 'http://127.0.0.1:9/x', headers: { authorization: header }, ...(body ? { body } : {}) } },
      },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'call' }],
  };
}

interface Answer {
  status: number;
  text: string;
  data: unknown;
  message?: string;
}

for (const kind of testDatabases()) {
  describe(`the Secrets page's procedures on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    const answers: string[] = [];

    async function call(path: string, input?: unknown, method: 'GET' | 'POST' = 'POST', headers: Record<string, string> = {}): Promise<Answer> {
      const url = method === 'GET' ? `${server.url}/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}` : `${server.url}/trpc/${path}`;
      const response = await fetch(url, {
        method,
        headers: { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...headers },
        body: method === 'POST' ? JSON.stringify(input ?? {}) : undefined,
      });
      const text = await response.text();
      answers.push(text);
      const body = JSON.parse(text) as { result?: { data: unknown }; error?: { message: string } };
      return { status: response.status, text, data: body.result?.data, message: body.error?.message };
    }

    const list = async () => (await call('secretAdmin.list', undefined, 'GET')).data as {
      secrets: Array<{ name: string; updatedAt: number; usedBy: Array<{ flowId: string; flowName: string; in: string[] }> }>;
      missing: Array<{ name: string; usedBy: Array<{ flowName: string }> }>;
    };

    beforeAll(async () => {
      database = await kind.create();
      server = await startApp(database.url);
    });
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
      // Whatever happened above, no answer carried a value in any readable form.
      for (const value of [TOKEN, REPLACED, LATE]) {
        for (const form of readableForms(value)) expect(answers.filter((text) => text.includes(form))).toEqual([]);
      }
    });

    it('adds a secret and lists its name and change time, never its value', async () => {
      expect(await list()).toEqual({ secrets: [], missing: [] });
      const before = Date.now();
      const saved = await call('secretAdmin.save', { name: 'API_TOKEN', value: TOKEN });
      expect(saved.status).toBe(200);
      expect(saved.data).toMatchObject({ name: 'API_TOKEN', replaced: false });
      const { secrets } = await list();
      expect(secrets.map((secret) => secret.name)).toEqual(['API_TOKEN']);
      expect(secrets[0]!.updatedAt).toBeGreaterThanOrEqual(before - 1000);
      expect(secrets[0]!.usedBy).toEqual([]);
      expect(Object.keys(secrets[0]!).sort()).toEqual(['name', 'updatedAt', 'usedBy']);
    });

    it('names the flows whose draft or live version uses a secret, and the names flows use that are not stored', async () => {
      const drafted = await call('flows.create', { name: 'Draft user', document: flowUsing('Draft user', 'Bearer {{ secrets.API_TOKEN }}') });
      const draftId = (drafted.data as { id: string }).id;
      // Published with the secret (bracket form, inside a broken body template), then the draft drops it: live only.
      const published = await call('flows.create', { name: 'Live user', document: flowUsing('Live user', '{{ secrets["API_TOKEN"] }}') });
      const liveId = (published.data as { id: string }).id;
      expect((await call('flows.publish', { id: liveId })).status).toBe(200);
      await call('flows.saveDraft', { id: liveId, document: flowUsing('Live user', 'Basic {{ secrets.SMTP_PASSWORD }}', '{"a": "{{ secrets.BODY_KEY }}", "b": "{{ oops"}') });
      await call('flows.create', { name: 'Unrelated', document: flowUsing('Unrelated', 'Bearer {{ trigger.body.token }}') });

      const overview = await list();
      expect(overview.secrets[0]!.usedBy).toEqual([
        { flowId: draftId, flowName: 'Draft user', in: ['draft'] },
        { flowId: liveId, flowName: 'Live user', in: ['live'] },
      ]);
      expect(overview.missing).toEqual([
        { name: 'BODY_KEY', usedBy: [{ flowId: liveId, flowName: 'Live user', in: ['draft'] }] },
        { name: 'SMTP_PASSWORD', usedBy: [{ flowId: liveId, flowName: 'Live user', in: ['draft'] }] },
      ]);
    });

    it('refuses to add over a stored name, and replaces only when asked', async () => {
      const [before] = (await list()).secrets;
      const refused = await call('secretAdmin.save', { name: 'API_TOKEN', value: REPLACED });
      expect(refused.status).toBe(400);
      expect(refused.message).toBe('A secret named API_TOKEN is already stored. Choose another name, or replace its value on the Secrets page.');
      const replaced = await call('secretAdmin.save', { name: 'API_TOKEN', value: REPLACED, replace: true });
      expect(replaced.data).toMatchObject({ name: 'API_TOKEN', replaced: true });
      const [after] = (await list()).secrets;
      expect(after!.updatedAt).toBeGreaterThan(before!.updatedAt);
      expect(await server.services.secrets.values()).toMatchObject({ API_TOKEN: REPLACED });
    });

    it('of two adds of one new name at once, exactly one is stored and the other is told the name is taken', async () => {
      const attempts = await Promise.all(['first racing value', 'second racing value'].map((value) => call('secretAdmin.save', { name: 'RACED', value })));
      expect(attempts.map((attempt) => attempt.status).sort()).toEqual([200, 400]);
      const winner = attempts.findIndex((attempt) => attempt.status === 200);
      expect((await server.services.secrets.values()).RACED).toBe(['first racing value', 'second racing value'][winner]);
      await call('secretAdmin.delete', { name: 'RACED' });
    });

    it('refuses bad names and values in plain words, without echoing the value', async () => {
      const badName = await call('secretAdmin.save', { name: 'api token', value: 'long enough value' });
      expect(badName.status).toBe(400);
      expect(badName.message).toBe(
        '"api token" cannot be used as a secret name. A name starts with a capital letter and uses only capital letters, digits and underscores, at most 64 characters (for example API_TOKEN).',
      );
      const short = await call('secretAdmin.save', { name: 'SHORT', value: 'abc' });
      expect(short.status).toBe(400);
      expect(short.message).toMatch(/^The value of secret SHORT is too short: a secret needs at least \d+ characters/);
      const empty = await call('secretAdmin.save', { name: 'EMPTY', value: '' });
      expect(empty.message).toBe('Give the secret a value.');
      const noName = await call('secretAdmin.save', { name: '', value: 'long enough value' });
      expect(noName.message).toBe('Give the secret a name.');
      expect((await list()).secrets.map((secret) => secret.name)).toEqual(['API_TOKEN']);
    });

    it('masks a newly set value in the very next answer', async () => {
      // The flow is written before the secret exists, so its text holds the value as it is.
      const created = await call('flows.create', { name: 'Holds a value', document: flowUsing('Holds a value', `Bearer ${LATE}`) });
      const id = (created.data as { id: string }).id;
      expect((await call('secretAdmin.save', { name: 'LATE_TOKEN', value: LATE })).status).toBe(200);
      const flow = await call('flows.get', { id }, 'GET');
      expect(flow.status).toBe(200);
      expect(JSON.stringify(flow.data)).toContain('Bearer ');
      // The check in afterAll sees this answer too; here, say so where it happens.
      expect(flow.text).not.toContain(LATE);
    });

    it('deletes a secret and answers which flows used it', async () => {
      const deleted = await call('secretAdmin.delete', { name: 'API_TOKEN' });
      expect(deleted.data).toMatchObject({ name: 'API_TOKEN', deleted: true, usedBy: [{ flowName: 'Draft user' }, { flowName: 'Live user' }] });
      const overview = await list();
      expect(overview.secrets.map((secret) => secret.name)).toEqual(['LATE_TOKEN']);
      // Still used, no longer stored: now among the missing.
      expect(overview.missing.map((secret) => secret.name)).toEqual(['API_TOKEN', 'BODY_KEY', 'SMTP_PASSWORD']);
      expect((await call('secretAdmin.delete', { name: 'API_TOKEN' })).data).toMatchObject({ deleted: false });
      expect((await call('secretAdmin.delete', { name: 'not a name' })).status).toBe(400);
    });
  });
}

describe('the Secrets page behind a login', () => {
  let database: TestDatabase;
  let server: RunningServer;
  beforeAll(async () => {
    database = await testDatabases()[0]!.create();
    server = await startApp(database.url, { ONCEFLOW_ADMIN_PASSWORD: 'correct horse battery' });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('refuses every procedure without a session and allows them with one', async () => {
    const post = (path: string, body: unknown, cookie?: string) =>
      fetch(`${server.url}/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
    expect((await fetch(`${server.url}/trpc/secretAdmin.list`)).status).toBe(401);
    expect((await post('secretAdmin.save', { name: 'API_TOKEN', value: 'long enough value' })).status).toBe(401);
    expect((await post('secretAdmin.delete', { name: 'API_TOKEN' })).status).toBe(401);
    expect(await server.services.secrets.list()).toEqual([]);

    const login = await fetch(`${server.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'correct horse battery' }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect((await post('secretAdmin.save', { name: 'API_TOKEN', value: 'long enough value' }, cookie)).status).toBe(200);
    const listed = await fetch(`${server.url}/trpc/secretAdmin.list`, { headers: { cookie } });
    expect(listed.status).toBe(200);
    expect(await listed.text()).not.toContain('long enough value');
  });
});
