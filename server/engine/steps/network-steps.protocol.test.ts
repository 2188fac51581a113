/**
 * Network steps through the whole step protocol, on each database, against real receivers
 * on loopback: a failure before anything left this machine settles the claim at once (it
 * never stays `in_progress` for a lease), so the next run with the same key acts without
 * waiting; a key a header cannot carry travels encoded; and the process's network policy
 * follows HOST and ONCEFLOW_HTTP_ALLOW.
 *
 *   start (manual) ──► invoice (http.request, key "{{ trigger.body.order.id }}…") ──► after
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceFlow, startEngine, type EngineHarness } from '../../testing/engine-harness.ts';
import { testDatabases, type TestDatabase, type TestDatabaseKind } from '../../testing/databases.ts';
import { startReceiver, type Receiver } from '../../testing/receiver.ts';
import { readClaim } from '../../store/claims.ts';

/** A receiver on a port that was closed a moment ago: counts calls, answers 200. */
async function listenOn(port: number, calls: string[]): Promise<Server> {
  const server = createServer((request, response) => {
    calls.push(request.url ?? '/');
    request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

function withHeader(flow: ReturnType<typeof invoiceFlow>, name: string, template: string) {
  const invoice = flow.nodes.find((node) => node.id === 'invoice')!;
  const data = invoice.data as { request: { headers: Record<string, string> } };
  data.request.headers[name] = template;
  return flow;
}

function messageFlow(url: string) {
  return {
    format: 'onceflow/v1', name: 'Notify',
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'post', type: 'message.post', position: { x: 200, y: 0 }, data: { key: 'notify-{{ trigger.body.id }}', url, text: 'Paid', timeoutMs: 2000, retry: { max: 0 } } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'post' }],
  };
}

for (const kind of testDatabases()) {
  describe(`network steps and their claims on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let honouring: Receiver;

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      honouring = await startReceiver({ honoursKeys: true });
    });
    afterAll(async () => {
      await engine?.close();
      await honouring?.close();
      await database?.drop();
    });

    it('sends a key a header cannot carry percent-encoded, shows the value sent, and a repeat is a duplicate', async () => {
      honouring.reset();
      const flowId = await engine.publish(invoiceFlow(honouring.url, { key: '{{ trigger.body.order.id }}' }));
      const input = { order: { id: 'Bestellung-Ü-4417-€', total: 5 } };
      const first = await engine.runAndWait(flowId, input);
      expect(first.status).toBe('succeeded');
      expect(honouring.calls.map((call) => call.key)).toEqual(['Bestellung-%C3%9C-4417-%E2%82%AC']);
      const step = (await engine.services.runs.get(first.id)).steps.find((entry) => entry.nodeId === 'invoice');
      expect(step?.output).toMatchObject({ status: 200, sentKeyHeader: { name: 'Idempotency-Key', value: 'Bestellung-%C3%9C-4417-%E2%82%AC' } });
      expect((await readClaim(engine.services.db, `${flowId}:invoice`, 'Bestellung-Ü-4417-€'))?.status).toBe('succeeded');

      const second = await engine.runAndWait(flowId, input);
      expect(second.status).toBe('succeeded');
      expect(await engine.eventTypes(second.id)).toContain('step.duplicate');
      expect(honouring.calls).toHaveLength(1);
    });

    it('a header that cannot be sent fails the step without holding the key; the next run acts at once', async () => {
      honouring.reset();
      const flowId = await engine.publish(withHeader(invoiceFlow(honouring.url), 'x-customer', '{{ trigger.body.customer }}'));
      const bad = await engine.runAndWait(flowId, { order: { id: 'H-1', total: 5 }, customer: 'Jürgen € Ltd' });
      expect(bad.status).toBe('failed');
      expect(bad.error).toMatch(/^The header "x-customer" cannot be sent: .*Nothing was sent\.$/);
      expect(await readClaim(engine.services.db, `${flowId}:invoice`, 'H-1:invoice')).toBeUndefined();
      expect(honouring.calls).toHaveLength(0);

      const good = await engine.runAndWait(flowId, { order: { id: 'H-1', total: 5 }, customer: 'Juergen Ltd' });
      expect(good.status).toBe('succeeded');
      const events = await engine.eventTypes(good.id);
      expect(events).not.toContain('step.waiting_for_claim');
      expect(events).not.toContain('step.recovered');
      expect(honouring.calls.map((call) => call.headers['x-customer'])).toEqual(['Juergen Ltd']);
    });

    it('a refused connection fails the step with its claim failed, not in progress; the next run with the key acts at once', async () => {
      const closed = await startReceiver({ honoursKeys: false });
      const { url } = closed;
      await closed.close();
      const flowId = await engine.publish(invoiceFlow(url, { keyHeader: false, retryMax: 0 }));
      const first = await engine.runAndWait(flowId, { order: { id: 'R-1', total: 5 } });
      expect(first.status).toBe('failed');
      expect(first.error).toContain('could not be reached (the connection was refused, ECONNREFUSED); nothing was sent.');
      expect((await readClaim(engine.services.db, `${flowId}:invoice`, 'R-1:invoice'))?.status).toBe('failed');

      const calls: string[] = [];
      const reopened = await listenOn(Number(new URL(url).port), calls);
      try {
        const second = await engine.runAndWait(flowId, { order: { id: 'R-1', total: 5 } });
        expect(second.status).toBe('succeeded');
        expect(await engine.eventTypes(second.id)).not.toContain('step.waiting_for_claim');
        expect(calls).toEqual(['/invoices']);
        expect((await readClaim(engine.services.db, `${flowId}:invoice`, 'R-1:invoice'))?.status).toBe('succeeded');
      } finally {
        reopened.closeAllConnections();
        await new Promise((resolve) => reopened.close(resolve));
      }
    });

    it('a refused address fails http.request and message.post at once, with the claim failed', async () => {
      const httpFlow = invoiceFlow('http://[::ffff:169.254.169.254]', { retryMax: 0 });
      const httpRun = await engine.runAndWait(await engine.publish(httpFlow), { order: { id: 'M-1', total: 1 } });
      expect(httpRun.status).toBe('failed');
      expect(httpRun.error).toBe('Calls to ::ffff:a9fe:a9fe (another way of writing 169.254.169.254) are refused: it is a link-local address, where cloud metadata services hand out credentials. Nothing was sent.');
      expect((await readClaim(engine.services.db, `${httpRun.flowId}:invoice`, 'M-1:invoice'))?.status).toBe('failed');

      const postRun = await engine.runAndWait(await engine.publish(messageFlow('http://[64:ff9b::a9fe:a9fe]/hook')), { id: 'M-2' });
      expect(postRun.status).toBe('failed');
      expect(postRun.error).toMatch(/^Calls to 64:ff9b::a9fe:a9fe \(another way of writing 169\.254\.169\.254\) are refused/);
      expect((await readClaim(engine.services.db, `${postRun.flowId}:post`, 'notify-M-2'))?.status).toBe('failed');
    });
  });

  describe(`the network policy follows HOST and ONCEFLOW_HTTP_ALLOW on ${kind.name}`, () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver({ honoursKeys: false });
    });
    afterAll(async () => {
      await receiver?.close();
    });

    async function runOnce(databaseKind: TestDatabaseKind, env: Record<string, string>) {
      const database = await databaseKind.create();
      const engine = await startEngine(database.url, env);
      try {
        const flowId = await engine.publish(invoiceFlow(receiver.url, { keyHeader: false, retryMax: 0 }));
        return await engine.runAndWait(flowId, { order: { id: 'E-1', total: 1 } });
      } finally {
        await engine.close();
        await database.drop();
      }
    }

    it('exposed, refuses a receiver on loopback; allowed by address, it is called; on loopback it is called as before', async () => {
      receiver.reset();
      const refused = await runOnce(kind, { HOST: '0.0.0.0' });
      expect(refused.status).toBe('failed');
      expect(refused.error).toMatch(/^Calls to 127\.0\.0\.1 are refused: it is a loopback address, .*add 127\.0\.0\.1 to ONCEFLOW_HTTP_ALLOW/);
      expect(receiver.calls).toHaveLength(0);

      expect((await runOnce(kind, { HOST: '0.0.0.0', ONCEFLOW_HTTP_ALLOW: '127.0.0.1' })).status).toBe('succeeded');
      expect((await runOnce(kind, { HOST: '127.0.0.1' })).status).toBe('succeeded');
      expect(receiver.calls).toHaveLength(2);
    });
  });
}
