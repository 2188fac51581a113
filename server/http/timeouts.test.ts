/**
 * Senders that stall or trickle are answered 408 and cut off, while every other request
 * goes on. The whole app runs, with short time-outs so the test is quick.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import type { Services } from '../services.ts';
import { hookUrl, startApp } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { postJson } from '../testing/http-client.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';
import { DEFAULT_HTTP_LIMITS, serverOptions } from './server-options.ts';

const LIMITS = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 };

interface RawExchange {
  socket: net.Socket;
  /** Everything the server sent, once it closed the connection. */
  answer: Promise<string>;
  closed: () => boolean;
}

function openRaw(port: number, first: string): RawExchange {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('utf8'); });
  const answer = new Promise<string>((resolve) => socket.on('close', () => { closed = true; resolve(received); }));
  socket.on('error', () => {});
  socket.write(first);
  return { socket, answer, closed: () => closed };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('time-out defaults', () => {
  it('bounds how long headers and bodies may take, and checks often enough to honour it', () => {
    expect(serverOptions.requestTimeout).toBe(DEFAULT_HTTP_LIMITS.requestTimeoutMs);
    expect(serverOptions.http?.headersTimeout).toBe(DEFAULT_HTTP_LIMITS.headersTimeoutMs);
    expect(DEFAULT_HTTP_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(DEFAULT_HTTP_LIMITS.requestTimeoutMs);
    expect(serverOptions.http?.connectionsCheckingInterval).toBeLessThanOrEqual(DEFAULT_HTTP_LIMITS.headersTimeoutMs / 2);
    expect(serverOptions.connectionTimeout).toBeGreaterThan(60_000);
  });
});

for (const kind of testDatabases()) {
  describe(`slow senders on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let services: Services;
    let port: number;
    let hookPath: string;

    beforeAll(async () => {
      database = await kind.create();
      server = await startApp(database.url, { ONCEFLOW_SANDBOX: '0' }, { http: LIMITS, worker: false });
      services = server.services;
      port = Number(new URL(server.url).port);
      const { id: flowId } = await services.flows.import(webhookEffectFlow('http://127.0.0.1:9'));
      hookPath = new URL(await hookUrl(server, flowId)).pathname;
    });
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    it('answers stalled and trickling senders 408 and closes them, while other requests are served', async () => {
      const headers = (length: number) => `POST ${hookPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
      const stalledBodies = Array.from({ length: 10 }, () => openRaw(port, `${headers(1_000)}{"id": "stalled`));
      const stalledHeaders = Array.from({ length: 5 }, () => openRaw(port, `POST ${hookPath} HTTP/1.1\r\nHost: 127.0.0.1\r\n`));
      const silent = openRaw(port, '');
      // One byte every 50 ms: 1,000 bytes would take 50 s, far past the 2 s allowed.
      const trickle = openRaw(port, `${headers(1_000)}{"id": "trickle", "pad": "`);
      const dripping = setInterval(() => { if (!trickle.closed()) trickle.socket.write('x'); }, 50);

      try {
        const normal = await postJson(`http://127.0.0.1:${port}${hookPath}`, { id: 'evt_while_stalled' });
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(normal.status).toBe(202);
        expect(health.status).toBe(200);
        // Served while all of them were still waiting: a waiting sender blocks no one.
        expect([...stalledBodies, ...stalledHeaders, trickle].filter((exchange) => exchange.closed())).toEqual([]);

        const answers = await Promise.all([...stalledBodies, ...stalledHeaders, trickle].map((exchange) => exchange.answer));
        for (const answer of answers) {
          expect(answer).toMatch(/^HTTP\/1\.1 408 /);
          expect(answer).toContain('The request did not arrive in time');
        }
        // A connection that never sends a byte is closed too (no answer is owed to it).
        await silent.answer;
      } finally {
        clearInterval(dripping);
      }
      const runs = await services.db.all<{ event_id: string }>('SELECT event_id FROM runs');
      expect(runs.map((run) => run.event_id)).toEqual(['evt_while_stalled']);
    });

    it('accepts an honest slow sender that finishes within the limits', async () => {
      const body = JSON.stringify({ id: 'evt_slow_but_honest', note: 'sent in four pieces' });
      const exchange = openRaw(port, `POST ${hookPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      const pieces = body.match(/.{1,16}/g)!;
      for (const piece of pieces) {
        await sleep(100);
        exchange.socket.write(piece);
      }
      expect(await exchange.answer).toMatch(/^HTTP\/1\.1 202 /);
    });

    it('answers headers larger than 16 KiB with 431 in plain words', async () => {
      const exchange = openRaw(port, `POST ${hookPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'x'.repeat(20 * 1024)}\r\nContent-Length: 2\r\n\r\n{}`);
      const answer = await exchange.answer;
      expect(answer).toMatch(/^HTTP\/1\.1 431 /);
      expect(answer).toContain('larger than 16 KiB');
    });
  });
}
