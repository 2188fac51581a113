/**
 * email.send's mail server under the network policy, against real mail servers
 * (smtp-server) on loopback. The SMTP host resolves through a stub, so a refused address
 * is never contacted; a name the stub points at 127.0.0.1 delivering mail shows that the
 * transport connects to the address that was checked, and the TLS server seeing that name
 * shows the name is kept for the certificate.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import type { TypedStep } from '../flow/planned-step.ts';
import { METADATA_SPELLINGS, stubResolver } from '../net/address-fixtures.ts';
import { createNetworkPolicy, type NetworkPolicy } from '../network-policy.ts';
import { createRenderer } from '../step-runtime.ts';
import { systemClock } from '../types.ts';
import { closeEmailTransports, emailSendStep } from './email-send.ts';
import type { StepIO } from './types.ts';

const render = createRenderer({ trigger: { body: {}, headers: {} }, steps: {}, secrets: {} }, systemClock);

function emailNode(host: string, port: number, secure = false): TypedStep<'email.send'> {
  return {
    id: 'mail', type: 'email.send', label: 'mail', sideEffect: true,
    data: { key: 'k', smtp: { host, port, secure }, from: 'shop@example.test', to: 'ann@example.test', subject: 'Hello', text: 'Hi', timeoutMs: 3000 },
  };
}

function send(network: NetworkPolicy, host: string, port: number, secure = false) {
  const io: StepIO = { key: 'welcome-Ü-€', runId: 'run_test', flowId: 'flow_test', nodeId: 'mail', now: () => Date.now(), signal: new AbortController().signal, services: { network } };
  return emailSendStep.execute(emailSendStep.prepare(emailNode(host, port, secure), render), io);
}

async function listen(server: SMTPServer): Promise<number> {
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.server.address() as AddressInfo).port;
}

describe('email.send under the network policy', () => {
  const received: string[] = [];
  let connections = 0;
  let plain: SMTPServer;
  let port: number;
  const serverNames: string[] = [];
  let tls: SMTPServer;
  let tlsPort: number;

  beforeAll(async () => {
    plain = new SMTPServer({
      authOptional: true, disableReverseLookup: true, disabledCommands: ['STARTTLS'], logger: false,
      onConnect(_session, callback) {
        connections++;
        callback();
      },
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push(Buffer.concat(chunks).toString('utf8'));
          callback();
        });
      },
    });
    port = await listen(plain);
    // smtp-server's built-in certificate is self-signed: the handshake fails, after the
    // server has seen which name the client asked for.
    tls = new SMTPServer({
      secure: true, authOptional: true, disableReverseLookup: true, logger: false,
      SNICallback(servername, callback) {
        serverNames.push(servername);
        callback(null, undefined as never);
      },
    });
    tlsPort = await listen(tls);
  });
  beforeEach(() => {
    received.length = 0;
    connections = 0;
  });
  afterAll(async () => {
    closeEmailTransports();
    await new Promise<void>((resolve) => plain?.close(() => resolve()));
    await new Promise<void>((resolve) => tls?.close(() => resolve()));
  });

  it('refuses a mail server written as any spelling of the metadata address, or a name resolving to one, without connecting', async () => {
    for (const spelling of METADATA_SPELLINGS) {
      const network = createNetworkPolicy({ resolve: stubResolver({ 'mail.example.test': [spelling.replace(/^\[|\]$/g, '')] }) });
      for (const host of [spelling, 'mail.example.test']) {
        const outcome = await send(network, host, port);
        expect(outcome.kind, host).toBe('failed');
        expect(outcome.kind === 'failed' && outcome.message).toMatch(/are refused: it is a link-local address/);
      }
    }
    expect(connections).toBe(0);
  });

  it('connects to the address the name was checked at, and delivers', async () => {
    const network = createNetworkPolicy({ resolve: stubResolver({ 'mail.example.test': ['127.0.0.1'] }) });
    const outcome = await send(network, 'mail.example.test', port);
    expect(outcome.kind).toBe('succeeded');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatch(/X-Onceflow-Key: =\?UTF-8\?/);
  });

  it('keeps the name for TLS when connecting to its address; a failed handshake is not done', async () => {
    const network = createNetworkPolicy({ resolve: stubResolver({ 'secure-mail.example.test': ['127.0.0.1'] }) });
    const outcome = await send(network, 'secure-mail.example.test', tlsPort, true);
    expect(serverNames).toContain('secure-mail.example.test');
    expect(outcome.kind).toBe('not_done');
    expect(outcome.kind === 'not_done' && outcome.message).toMatch(/could not be handed to the mail server .*; nothing was sent\.$/);
  });

  it('an unknown mail server name is not done, with a plain reason', async () => {
    const outcome = await send(createNetworkPolicy({ resolve: stubResolver({}) }), 'nowhere.example.test', port);
    expect(outcome).toEqual({ kind: 'not_done', message: `The email could not be handed to the mail server nowhere.example.test:${port} (no such host); nothing was sent.` });
  });

  it('when exposed, refuses a mail server on loopback unless ONCEFLOW_HTTP_ALLOW names it', async () => {
    const refused = await send(createNetworkPolicy({ exposed: true }), '127.0.0.1', port);
    expect(refused.kind === 'failed' && refused.message).toMatch(/^Calls to 127\.0\.0\.1 are refused: it is a loopback address/);
    expect(connections).toBe(0);
    const allowed = await send(createNetworkPolicy({ exposed: true, allow: '127.0.0.0/8' }), '127.0.0.1', port);
    expect(allowed.kind).toBe('succeeded');
    expect(received).toHaveLength(1);
  });
});
