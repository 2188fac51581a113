/**
 * Receivers on loopback that tell back everything they got, the way careless real ones do
 * in their answers and error messages: an HTTP server that echoes the request line,
 * headers and body (as JSON, as text, in base64, and the Basic credentials re-encoded),
 * and a mail server that quotes the password it refused and the subject and text of the
 * mail it accepted, refused, deferred or took without answering.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { readBody } from './receiver.ts';

export interface EchoReceiver {
  url: string;
  calls: number;
  close(): Promise<void>;
}

/**
 * The path decides the answer: `/echo/ok` 200 JSON, `/echo/text` 200 text/plain,
 * `/echo/refuse` 422, `/echo/fail` 500, `/echo/flaky` 500 on a ref's first call and 200
 * after, `/echo/slow` 200 after `slowMs`; `/chat/…` 200 and `/chat-refuse/…` 404 (a chat
 * webhook); anything else 404. Every answer echoes the request.
 */
export async function startEchoReceiver(options: { slowMs?: number } = {}): Promise<EchoReceiver> {
  const seen = new Map<string, number>();
  let server: Server;
  const receiver: EchoReceiver = {
    url: '',
    calls: 0,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  server = createServer(async (request, response) => {
    receiver.calls++;
    const body = await readBody(request);
    const path = request.url ?? '/';
    const credential = String(request.headers.authorization ?? '').replace(/^Basic /, '');
    const echo = JSON.stringify({
      method: request.method,
      url: path,
      headers: request.headers,
      body,
      bodyBase64: Buffer.from(body).toString('base64'),
      basic: Buffer.from(`ann:${credential}`).toString('base64'),
    });
    const mode = /^\/(echo\/[a-z]+|chat-refuse|chat)/.exec(path)?.[1] ?? 'unknown';
    const ref = new URL(path, 'http://x').searchParams.get('ref') ?? '';
    const send = (status: number, type = 'application/json') => {
      if (!response.destroyed) response.writeHead(status, { 'content-type': type }).end(echo);
    };
    switch (mode) {
      case 'echo/ok': return send(200);
      case 'echo/text': return send(200, 'text/plain');
      case 'echo/refuse': return send(422);
      case 'echo/fail': return send(500);
      case 'echo/flaky': {
        seen.set(ref, (seen.get(ref) ?? 0) + 1);
        return send(seen.get(ref) === 1 ? 500 : 200);
      }
      case 'echo/slow':
        await new Promise((resolve) => setTimeout(resolve, options.slowMs ?? 1500));
        return send(200);
      case 'chat': return send(200, 'text/plain');
      case 'chat-refuse': return send(404, 'text/plain');
      default: return send(404);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

export interface EchoMailServer {
  host: string;
  port: number;
  /** Subjects of the mails accepted (250). */
  accepted: string[];
  close(): Promise<void>;
}

/** Decodes RFC 2047 words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`); adjacent words join without the space between them. */
function decodeWords(header: string): string {
  const bytes: number[] = [];
  let out = '';
  let last = 0;
  const flush = () => {
    out += Buffer.from(bytes).toString('utf8');
    bytes.length = 0;
  };
  for (const match of header.matchAll(/=\?[^?]+\?([BbQq])\?([^?]*)\?=/g)) {
    const between = header.slice(last, match.index);
    if (bytes.length === 0 || between.trim() !== '') {
      flush();
      out += between;
    }
    const [, encoding, text] = match as unknown as [string, string, string];
    if (encoding.toUpperCase() === 'B') bytes.push(...Buffer.from(text, 'base64'));
    else bytes.push(...Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1'));
    last = match.index + match[0].length;
  }
  flush();
  return out + header.slice(last);
}

/** The subject and the text of a raw single-part message, decoded. */
export function readMail(raw: string): { subject: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  let text = body;
  if (encoding === 'base64') text = Buffer.from(body, 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    text = Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  }
  return { subject: decodeWords(header('Subject')), text: text.replace(/\r?\n$/, '') };
}

/**
 * Password required. User `wrong` is refused with the password quoted back (535). The first
 * recipient decides the rest: `refuse@…` 550 and `later@…` 451 quoting the subject and
 * text, `drop@…` takes the mail and cuts the connection before answering, anything else
 * 250 quoting the subject.
 */
export async function startEchoMailServer(): Promise<EchoMailServer> {
  const sockets = new Map<number, Socket>();
  const accepted: string[] = [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'wrong') {
        callback(Object.assign(new Error(`No user ${auth.username} with password ${auth.password ?? ''}`), { responseCode: 535 }));
        return;
      }
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = readMail(Buffer.concat(chunks).toString('utf8'));
        const to = session.envelope.rcptTo[0]?.address ?? '';
        const quoted = `${mail.subject} / ${mail.text}`;
        if (to.startsWith('refuse@')) return callback(Object.assign(new Error(`Refused: ${quoted}`), { responseCode: 550 }));
        if (to.startsWith('later@')) return callback(Object.assign(new Error(`Try later: ${quoted}`), { responseCode: 451 }));
        if (to.startsWith('drop@')) {
          sockets.get(session.remotePort)?.destroy();
          return callback();
        }
        accepted.push(mail.subject);
        callback(null, `Queued: ${mail.subject}`);
      });
    },
  });
  server.server.on('connection', (socket: Socket) => {
    const port = socket.remotePort;
    if (port === undefined) return;
    sockets.set(port, socket);
    socket.once('close', () => sockets.delete(port));
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port: address.port,
    accepted,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets.values()) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
