/**
 * Signed webhooks over real HTTP, and secrets that never leak: after a run that uses a
 * secret in a header, its value is nowhere in the database, the logs, run details or exports.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { hookUrl, startApp, waitForRunStatus } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { postRaw } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { startServerProcess, trpc } from '../testing/server-process.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';
import { signHmac, signStandardWebhook, signStripe } from '../webhooks/signatures.ts';
import { openDatabase } from '../store/db.ts';

const SECRET = 'whsec_' + Buffer.from('a-very-secret-signing-key-32byte').toString('base64');

for (const kind of testDatabases()) {
  describe(`webhook signatures on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let receiver: Receiver;

    beforeAll(async () => {
      database = await kind.create();
      server = await startApp(database.url);
      receiver = await startReceiver({ honoursKeys: true });
      await server.services.secrets.set('HOOK_SECRET', SECRET);
      await server.services.secrets.set('STRIPE_SECRET', 'whsec_stripe_plain');
      await server.services.secrets.set('HMAC_SECRET', 'hmac-secret');
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await database?.drop();
    });

    it('makes runs only from validly signed deliveries (Standard Webhooks matrix)', async () => {
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url, { signature: { scheme: 'standard-webhooks', secret: 'HOOK_SECRET' } }));
      const url = await hookUrl(server, flowId);
      const now = Math.floor(Date.now() / 1000);
      const send = (body: string, headers: Record<string, string>) => postRaw(url, body, { 'content-type': 'application/json', ...headers });
      const signed = (id: string, body: string, at = now, secret = SECRET) => ({ 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': signStandardWebhook(secret, id, at, body) });
      const body = (id: string) => JSON.stringify({ id });
      const other = 'whsec_' + Buffer.from('another-secret-another-secret-!!').toString('base64');

      const cases: [string, Promise<{ status: number }>, number][] = [
        ['valid', send(body('s1'), signed('msg_1', body('s1'))), 202],
        ['wrong secret', send(body('s2'), signed('msg_2', body('s2'), now, other)), 401],
        ['tampered body', send(body('s3x'), signed('msg_3', body('s3'))), 401],
        ['6 minutes old', send(body('s4'), signed('msg_4', body('s4'), now - 360)), 401],
        ['6 minutes ahead', send(body('s5'), signed('msg_5', body('s5'), now + 360)), 401],
        ['rotation: one of two valid', send(body('s6'), { ...signed('msg_6', body('s6')), 'webhook-signature': `${signStandardWebhook(other, 'msg_6', now, body('s6'))} ${signStandardWebhook(SECRET, 'msg_6', now, body('s6'))}` }), 202],
        ['missing headers', send(body('s7'), {}), 401],
        ['malformed header', send(body('s8'), { ...signed('msg_8', body('s8')), 'webhook-signature': 'v1 not-base64-at-all' }), 401],
      ];
      for (const [name, answer, status] of cases) expect((await answer).status, name).toBe(status);

      const runs = await server.services.db.all<{ event_id: string }>(`SELECT event_id FROM runs WHERE flow_id = ? ORDER BY event_id`, [flowId]);
      expect(runs.map((run) => run.event_id)).toEqual(['s1', 's6']);
      const rejections = await server.services.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_rejections WHERE hook_id = ? AND status = 401`, [url.split('/').at(-1)]);
      expect(Number(rejections?.n)).toBe(6);
      const inbox = await server.services.inbox.list(flowId);
      expect(inbox.rejections).toHaveLength(6);
      expect(inbox.rejections.map((rejection) => rejection.reason).join(' ')).not.toContain('s3x');
    });

    it('checks Stripe and plain HMAC signatures', async () => {
      const stripeFlow = await server.services.flows.import(webhookEffectFlow(receiver.url, { signature: { scheme: 'stripe', secret: 'STRIPE_SECRET' } }));
      const stripeUrl = await hookUrl(server, stripeFlow.id);
      const now = Math.floor(Date.now() / 1000);
      const payload = JSON.stringify({ id: 'st_1' });
      expect((await postRaw(stripeUrl, payload, { 'content-type': 'application/json', 'stripe-signature': signStripe('whsec_stripe_plain', now, payload) })).status).toBe(202);
      expect((await postRaw(stripeUrl, payload, { 'content-type': 'application/json', 'stripe-signature': signStripe('wrong', now, payload) })).status).toBe(401);
      expect((await postRaw(stripeUrl, payload, { 'content-type': 'application/json', 'stripe-signature': signStripe('whsec_stripe_plain', now - 400, payload) })).status).toBe(401);

      const hmacFlow = await server.services.flows.import(webhookEffectFlow(receiver.url, { signature: { scheme: 'hmac-sha256', secret: 'HMAC_SECRET', header: 'x-shop-signature' } }));
      const hmacUrl = await hookUrl(server, hmacFlow.id);
      const hmacBody = JSON.stringify({ id: 'hm_1' });
      expect((await postRaw(hmacUrl, hmacBody, { 'content-type': 'application/json', 'x-shop-signature': signHmac('hmac-secret', hmacBody) })).status).toBe(202);
      expect((await postRaw(hmacUrl, hmacBody, { 'content-type': 'application/json', 'x-shop-signature': signHmac('hmac-secret', `${hmacBody} `) })).status).toBe(401);
      const run = await server.services.runs.list({ flowId: hmacFlow.id });
      expect(run.runs).toHaveLength(1);
      const input = (await server.services.runs.get(run.runs[0]!.id)).run.input as { headers: Record<string, string> };
      expect(input.headers['x-shop-signature']).toBeUndefined();
    });
  });
}

describe('secrets never leak', () => {
  const [sqlite] = testDatabases();
  let echo: Server;
  let echoUrl: string;

  beforeAll(async () => {
    // A receiver that answers with every header it got, as some real APIs do in errors.
    echo = createHttpServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ headers: request.headers, url: request.url }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  it('keeps a secret used in a header out of rows, logs, run details and exports', async () => {
    const value = 'sk_live_9f8e7d6c5b4a-do-not-leak';
    const database = await sqlite!.create();
    const server = await startServerProcess({ DATABASE_URL: database.url, ONCEFLOW_LOG_LEVEL: 'debug' });
    try {
      await trpc(server.url, 'secrets.set', { name: 'API_TOKEN', value });
      const document = {
        format: 'onceflow/v1', name: 'Uses a secret', sampleInput: { order: { id: '1' } },
        nodes: [
          { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
          { id: 'call', type: 'http.request', position: { x: 200, y: 0 }, data: {
            sideEffect: true, key: '{{ trigger.body.order.id }}:call',
            request: { method: 'POST', url: `${echoUrl}/charge?token={{ secrets.API_TOKEN }}`, headers: { authorization: 'Bearer {{ secrets.API_TOKEN }}' }, body: '{"token": "{{ secrets.API_TOKEN }}"}' },
          } },
        ],
        edges: [{ id: 'e1', source: 'start', target: 'call' }],
      };
      const { id: flowId } = await trpc<{ id: string }>(server.url, 'flows.import', { document });
      const { runId } = await trpc<{ runId: string }>(server.url, 'runs.start', { flowId, input: { order: { id: '1' } } });
      const db = await openDatabase(database.url);
      for (let tries = 0; tries < 200; tries++) {
        const status = (await db.get<{ status: string }>(`SELECT status FROM runs WHERE id = ?`, [runId]))?.status;
        if (status === 'succeeded' || status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((await db.get<{ status: string }>(`SELECT status FROM runs WHERE id = ?`, [runId]))?.status).toBe('succeeded');
      for (const table of ['runs', 'timeline_events', 'checkpoints', 'claims', 'inbound_events', 'flow_versions', 'flows', 'secrets']) {
        const rows = await db.all(`SELECT * FROM ${table}`);
        expect(JSON.stringify(rows), table).not.toContain(value);
      }
      const details = await trpc(server.url, 'runs.get', { runId }, 'query');
      expect(JSON.stringify(details)).not.toContain(value);
      expect(JSON.stringify(details)).toContain('••••••');
      expect(JSON.stringify(await trpc(server.url, 'flows.export', { id: flowId }, 'query'))).not.toContain(value);
      expect(JSON.stringify(await trpc(server.url, 'secrets.list', undefined, 'query'))).not.toContain(value);
      await db.close();
      expect(server.output()).not.toContain(value);
    } finally {
      await server.kill();
      await database.drop();
    }
  });
});
