/**
 * How email.send classifies what a real mail server (smtp-server on loopback) does:
 * a 5xx reply is refused, a 4xx reply and anything before the hand-over is not done, and
 * a connection cut after the hand-over is ambiguous. Also: the key header, the
 * Message-ID and pooled connections.
 */
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { createNetworkPolicy } from '../network-policy.ts';
import { createRenderer } from '../step-runtime.ts';
import { systemClock } from '../types.ts';
import type { TypedStep } from '../flow/planned-step.ts';
import { closeEmailTransports, emailSendStep, KEY_HEADER, messageIdFor, splitAddresses, type EmailAction } from './email-send.ts';
import type { StepIO } from './types.ts';

type Behaviour = 'ok' | 'reply-550-rcpt' | 'reply-451-data' | 'drop-at-rcpt' | 'drop-after-data' | 'slow-after-data';

interface TestMailServer {
  port: number;
  behaviour: Behaviour;
  received: Array<{ raw: string; to: string[] }>;
  connections: number;
  close(): Promise<void>;
}

function smtpError(message: string, responseCode: number): Error {
  return Object.assign(new Error(message), { responseCode });
}

async function startMailServer(): Promise<TestMailServer> {
  const sockets = new Map<number, Socket>();
  const drop = (session: SMTPServerSession) => sockets.get(session.remotePort)?.destroy();
  const mail: TestMailServer = { port: 0, behaviour: 'ok', received: [], connections: 0, close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disableReverseLookup: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.password === 's3cret') return callback(null, { user: auth.username });
      return callback(smtpError('Authentication failed', 535));
    },
    onConnect(_session, callback) {
      mail.connections++;
      callback();
    },
    onRcptTo(address, session, callback) {
      if (mail.behaviour === 'reply-550-rcpt') return callback(smtpError('No such mailbox here', 550));
      if (mail.behaviour === 'drop-at-rcpt') {
        drop(session);
        return callback();
      }
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (mail.behaviour === 'reply-451-data') return callback(smtpError('Mailbox busy, try later', 451));
        mail.received.push({ raw: Buffer.concat(chunks).toString('utf8'), to: session.envelope.rcptTo.map((rcpt) => rcpt.address) });
        if (mail.behaviour === 'drop-after-data') {
          drop(session);
          return callback();
        }
        if (mail.behaviour === 'slow-after-data') {
          setTimeout(() => callback(null, 'Queued late'), 1500);
          return;
        }
        return callback(null, 'Queued');
      });
    },
  });
  server.server.on('connection', (socket: Socket) => {
    if (socket.remotePort !== undefined) sockets.set(socket.remotePort, socket);
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mail.port = (server.server.address() as AddressInfo).port;
  mail.close = () => new Promise((resolve) => {
    for (const socket of sockets.values()) socket.destroy();
    server.close(() => resolve());
  });
  return mail;
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function emailNode(port: number, data: Record<string, unknown> = {}): TypedStep<'email.send'> {
  return {
    id: 'mail', type: 'email.send', label: 'mail', sideEffect: true,
    data: {
      key: 'order-{{ trigger.body.id }}',
      smtp: { host: '127.0.0.1', port: String(port), secure: false, user: 'robot', password: '{{ secrets.SMTP_PASSWORD }}' },
      from: 'Shop <shop@example.test>',
      to: '{{ trigger.body.email }}, "Doe, Jane" <jane@example.test>',
      subject: 'Order {{ trigger.body.id }}',
      text: 'Thanks for order {{ trigger.body.id }}.',
      timeoutMs: 3000,
      ...data,
    },
  } as TypedStep<'email.send'>;
}

const render = createRenderer(
  { trigger: { body: { id: '4417', email: 'ann@example.test' }, headers: {} }, steps: {}, secrets: { SMTP_PASSWORD: 's3cret' } },
  systemClock,
);

const network = createNetworkPolicy();

function io(key = 'order-4417'): StepIO {
  return { key, runId: 'run_test', flowId: 'flow_test', nodeId: 'mail', now: () => Date.now(), signal: new AbortController().signal, services: { network } };
}

describe('email.send rendering', () => {
  it('renders every field, splits recipients, and keeps the password out of the description', () => {
    const email = emailSendStep.prepare(emailNode(2525), render);
    expect(email.smtp).toEqual({ host: '127.0.0.1', port: 2525, secure: false, user: 'robot', password: 's3cret' });
    expect(email.to).toEqual(['ann@example.test', '"Doe, Jane" <jane@example.test>']);
    expect(email.subject).toBe('Order 4417');
    const described = emailSendStep.describe(email);
    expect(described).toEqual({
      from: 'Shop <shop@example.test>', to: ['ann@example.test', '"Doe, Jane" <jane@example.test>'], cc: [],
      subject: 'Order 4417', text: 'Thanks for order 4417.', html: null,
    });
    expect(JSON.stringify(described)).not.toContain('s3cret');
    expect(emailSendStep.honoursKey(emailNode(2525))).toBe(false);
  });

  it('accepts recipients as a list, and refuses a port that is not one', () => {
    const email = emailSendStep.prepare(emailNode(2525, { to: ['a@x.test', 'b@x.test; c@x.test'], cc: 'd@x.test' }), render);
    expect(email.to).toEqual(['a@x.test', 'b@x.test', 'c@x.test']);
    expect(email.cc).toEqual(['d@x.test']);
    expect(() => emailSendStep.prepare(emailNode(99999), render)).toThrow(/not a number between 1 and 65535/);
    expect(splitAddresses('  ')).toEqual([]);
  });
});

describe('email.send outcomes against a real mail server', () => {
  let mail: TestMailServer;
  beforeAll(async () => {
    mail = await startMailServer();
  });
  beforeEach(() => {
    mail.behaviour = 'ok';
    mail.received.length = 0;
  });
  afterAll(async () => {
    closeEmailTransports();
    await mail?.close();
  });

  const send = (port = mail.port, key?: string) => emailSendStep.execute(emailSendStep.prepare(emailNode(port), render) as EmailAction, io(key));

  it('sends with the key in X-Onceflow-Key and a Message-ID made from it', async () => {
    const outcome = await send();
    expect(outcome.kind).toBe('succeeded');
    expect(mail.received).toHaveLength(1);
    const raw = mail.received[0]!.raw;
    expect(raw).toContain(`${KEY_HEADER}: order-4417`);
    const expectedId = messageIdFor('order-4417', { from: 'Shop <shop@example.test>', to: ['ann@example.test', '"Doe, Jane" <jane@example.test>'], subject: 'Order 4417' });
    expect(raw).toContain(`Message-ID: ${expectedId}`);
    expect(expectedId).toMatch(/^<[0-9a-f]{32}\.onceflow@example\.test>$/);
    expect(outcome).toMatchObject({ output: { messageId: expectedId, accepted: ['ann@example.test', 'jane@example.test'], rejected: [] } });
    expect(raw).not.toContain('s3cret');
  });

  it('a 550 reply (no such mailbox) is a definitive failure', async () => {
    mail.behaviour = 'reply-550-rcpt';
    const outcome = await send();
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.message).toContain('550');
    expect(mail.received).toHaveLength(0);
  });

  it('a 451 reply (try later) is not done', async () => {
    mail.behaviour = 'reply-451-data';
    const outcome = await send();
    expect(outcome.kind).toBe('not_done');
    expect(outcome.kind === 'not_done' && outcome.message).toContain('451');
  });

  it('a refused connection is not done', async () => {
    const outcome = await send(await closedPort());
    expect(outcome.kind).toBe('not_done');
    expect(outcome.kind === 'not_done' && outcome.message).toContain('the connection was refused');
  });

  it('a connection cut before the message was handed over is not done', async () => {
    mail.behaviour = 'drop-at-rcpt';
    const outcome = await send();
    expect(outcome.kind).toBe('not_done');
    expect(mail.received).toHaveLength(0);
  });

  it('a connection cut after the message was handed over is ambiguous', async () => {
    mail.behaviour = 'drop-after-data';
    const outcome = await send();
    expect(outcome.kind).toBe('ambiguous');
    expect(outcome.kind === 'ambiguous' && outcome.message).toContain('may or may not have been sent');
    expect(mail.received).toHaveLength(1);
  });

  it('no final reply within the timeout after the hand-over is ambiguous', async () => {
    mail.behaviour = 'slow-after-data';
    const email = emailSendStep.prepare(emailNode(mail.port, { timeoutMs: 400 }), render);
    const outcome = await emailSendStep.execute(email, io());
    expect(outcome.kind).toBe('ambiguous');
    expect(outcome.kind === 'ambiguous' && outcome.message).toContain('no answer in time');
  });

  it('a refused password is a definitive failure that says what to check', async () => {
    const wrong = createRenderer({ trigger: { body: { id: '1', email: 'a@x.test' }, headers: {} }, steps: {}, secrets: { SMTP_PASSWORD: 'wrong' } }, systemClock);
    const outcome = await emailSendStep.execute(emailSendStep.prepare(emailNode(mail.port), wrong) as EmailAction, io());
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.message).toContain('did not accept the user name or password (535');
    expect(mail.received).toHaveLength(0);
  });

  it('reuses pooled connections: 30 sends open at most 5', async () => {
    const before = mail.connections;
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => send(mail.port, `bulk-${i}`)));
    expect(outcomes.every((outcome) => outcome.kind === 'succeeded')).toBe(true);
    expect(mail.received).toHaveLength(30);
    expect(mail.connections - before).toBeLessThanOrEqual(5);
  });
});
