/**
 * A stand-in mail server (smtp-server) that delivers nowhere: it records each message in
 * the ledger with its X-Onceflow-Key and Message-ID and answers 250. Like every real mail
 * server it honours no key, so a message sent twice is recorded twice.
 *
 * Authentication is optional and any user name and password are accepted. The settings
 * of the `email` receiver apply: latency before the final reply, a failure rate answered
 * with 451 (try again later) without recording, and "act, then drop the answer": the
 * message is recorded and the connection cut before the final 250.
 */
import type { Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { UserError } from '../engine/errors.ts';
import type { Ledger, SandboxSettings } from './ledger.ts';
import { pause } from './simple-receivers.ts';

export interface SmtpSandboxOptions {
  /** 0 picks a free port (tests); the app uses 2525 unless configured. */
  port: number;
  /** (default: 127.0.0.1) */
  host?: string;
  ledger: Ledger;
  settings: SandboxSettings;
}

export interface SmtpSandbox {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export interface ReceivedEmail {
  from: string | null;
  to: string[];
  subject: string | null;
  messageId: string | null;
  key: string | null;
  headers: Record<string, string>;
  size: number;
  /** The body as sent (MIME-encoded), cut at 20 KB. */
  body: string;
}

// (10 MiB) Larger messages are refused with 552 by smtp-server itself.
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const MAX_STORED_BODY = 20 * 1024;

/** Unfolds and reads the header block of a raw message; later duplicates are ignored. */
export function readEmail(raw: string, envelope: { from: string | null; to: string[] }): ReceivedEmail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split === -1 ? raw : raw.slice(0, split);
  const body = split === -1 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!(name in headers)) headers[name] = line.slice(colon + 1).trim();
  }
  return {
    from: envelope.from,
    to: envelope.to,
    subject: headers.subject ?? null,
    messageId: headers['message-id'] ?? null,
    key: headers['x-onceflow-key'] ?? null,
    headers,
    size: Buffer.byteLength(raw),
    body: body.length > MAX_STORED_BODY ? `${body.slice(0, MAX_STORED_BODY)}…` : body,
  };
}

function temporaryFailure(): Error {
  const error = new Error('The Onceflow sandbox simulated a temporary failure, as its settings ask; try again later') as Error & { responseCode: number };
  error.responseCode = 451;
  return error;
}

export async function startSmtpSandbox(options: SmtpSandboxOptions): Promise<SmtpSandbox> {
  const host = options.host ?? '127.0.0.1';
  const { ledger, settings } = options;
  // smtp-server does not hand its sockets to handlers; "drop the answer" needs them.
  const sockets = new Map<number, Socket>();

  const server = new SMTPServer({
    name: 'sandbox.onceflow.local',
    banner: 'Onceflow sandbox, delivers nowhere',
    authOptional: true,
    allowInsecureAuth: true,
    // Plain text only: no certificate to trust, and nothing real travels here.
    disabledCommands: ['STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    // Nobody here needs the client's host name, and looking it up delays every greeting.
    disableReverseLookup: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'sandbox' });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', () => {});
      stream.on('end', () => {
        void (async () => {
          const mailFrom = session.envelope.mailFrom;
          const email = readEmail(Buffer.concat(chunks).toString('utf8'), {
            from: mailFrom ? mailFrom.address : null,
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
          });
          const base = { kind: 'email', key: email.key, reference: email.messageId, data: email };
          const current = settings.get('email');
          await pause(current.latencyMs);
          if (settings.rollFailure('email')) {
            ledger.record('email', { ...base, outcome: 'failed' });
            callback(temporaryFailure());
            return;
          }
          if (current.dropAnswer) {
            ledger.record('email', { ...base, objectId: email.messageId, outcome: 'created_unanswered' });
            sockets.get(session.remotePort)?.destroy();
            callback();
            return;
          }
          ledger.record('email', { ...base, objectId: email.messageId, outcome: 'created' });
          callback(null, 'OK: recorded by the Onceflow sandbox');
        })();
      });
    },
  });
  server.server.on('connection', (socket: Socket) => {
    const port = socket.remotePort;
    if (port === undefined) return;
    socket.setNoDelay(true);
    sockets.set(port, socket);
    socket.once('close', () => {
      if (sockets.get(port) === socket) sockets.delete(port);
    });
  });
  server.on('error', () => {
    // Clients that vanish mid-session are normal here; nothing to report.
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new UserError(`The sandbox mail server cannot use port ${options.port} on ${host}: another program is using it. Stop that program or give the sandbox another port.`, { cause: error }));
      } else {
        reject(error);
      }
    };
    server.server.once('error', onError);
    server.listen(options.port, host, () => {
      server.server.off('error', onError);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;

  return {
    host,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets.values()) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
