/**
 * `onceflow sandbox ledger|reset` through the real tRPC API over HTTP, against a server
 * that serves only the sandbox router (the full app router adds it the same way).
 */
import { createTRPCClient, httpLink } from '@trpc/client';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../sandbox/plugin.ts';
import type { Services } from '../services.ts';
import { sandboxRouter } from '../trpc/sandbox.ts';
import { router } from '../trpc/trpc.ts';
import type { Client } from './client.ts';
import { sandboxCommand } from './sandbox.ts';

const testRouter = router({ sandbox: sandboxRouter });

async function serve(sandbox: Sandbox | undefined): Promise<{ app: FastifyInstance; client: Client }> {
  const app = Fastify();
  const services = { log: pino({ level: 'silent' }), sandbox } as unknown as Services;
  await app.register(fastifyTRPCPlugin, { prefix: '/trpc', trpcOptions: { router: testRouter, createContext: () => ({ services, user: 'admin' }) } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/trpc`;
  // Only the sandbox part of the app's client is used here.
  const client = createTRPCClient<typeof testRouter>({ links: [httpLink({ url })] }) as unknown as Client;
  return { app, client };
}

describe('onceflow sandbox', () => {
  let sandbox: Sandbox;
  let on: { app: FastifyInstance; client: Client };
  let off: { app: FastifyInstance; client: Client };
  let lines: string[];
  const io = { print: (line: string) => void lines.push(line) };

  beforeAll(async () => {
    sandbox = createSandbox({ smtpPort: 0 });
    on = await serve(sandbox);
    off = await serve(undefined);
  });
  beforeEach(() => {
    lines = [];
    sandbox.reset();
  });
  afterAll(async () => {
    await on?.app.close();
    await off?.app.close();
  });

  it('prints what arrived and flags a reference that took effect twice', async () => {
    sandbox.ledger.record('payments', { kind: 'charge', key: 'order-1:charge', outcome: 'created' });
    sandbox.ledger.record('payments', { kind: 'charge', key: 'order-1:charge', outcome: 'replayed' });
    sandbox.ledger.record('crm', { kind: 'contact', reference: 'c-1', outcome: 'created' });
    sandbox.ledger.record('crm', { kind: 'contact', reference: 'c-1', outcome: 'created' });
    await sandboxCommand(on.client, ['ledger'], io);
    expect(lines).toEqual([
      'payments: 2 arrived, 1 took effect',
      '  order-1:charge  arrived 2 times, took effect once',
      'email: 0 arrived, 0 took effect',
      'crm: 2 arrived, 2 took effect, 1 done more than once',
      '  c-1  arrived 2 times, took effect 2 times  <- duplicate',
      'chat: 0 arrived, 0 took effect',
    ]);
  });

  it('prints one receiver as JSON, and resets', async () => {
    sandbox.ledger.record('chat', { kind: 'message', outcome: 'created', data: { text: 'hi' } });
    await sandboxCommand(on.client, ['ledger', 'chat', '--json'], io);
    const printed = JSON.parse(lines.join('\n')) as { receivers: Array<{ receiver: string; effects: number }>; entries: Array<{ data: unknown }> };
    expect(printed.receivers).toEqual([expect.objectContaining({ receiver: 'chat', effects: 1 })]);
    expect(printed.entries[0]?.data).toEqual({ text: 'hi' });

    lines = [];
    await sandboxCommand(on.client, ['reset'], io);
    expect(lines).toEqual(['Every sandbox ledger is empty again.']);
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('configures a receiver through the API', async () => {
    const api = on.client as unknown as { sandbox: { configure: { mutate(input: unknown): Promise<unknown> }; settings: { query(): Promise<{ receivers: Record<string, unknown> }> } } };
    await api.sandbox.configure.mutate({ receiver: 'email', failureRate: 0.25, dropAnswer: true });
    expect((await api.sandbox.settings.query()).receivers.email).toEqual({ latencyMs: 0, failureRate: 0.25, dropAnswer: true });
    await expect(api.sandbox.configure.mutate({ receiver: 'email', failureRate: 2 })).rejects.toThrow(/between 0 and 1/);
    sandbox.settings.reset();
  });

  it('says in plain words when a receiver name is wrong or the sandbox is off', async () => {
    await expect(sandboxCommand(on.client, ['ledger', 'bank'], io)).rejects.toThrow('The sandbox has no receiver "bank"; it has payments, email, crm, chat.');
    await expect(sandboxCommand(off.client, ['ledger'], io)).rejects.toThrow(/The sandbox is off on this server/);
    await expect(sandboxCommand(on.client, ['explode'], io)).rejects.toThrow(/onceflow sandbox ledger/);
  });
});
