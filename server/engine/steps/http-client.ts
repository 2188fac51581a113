/**
 * A small HTTP client on node:http with keep-alive agents. The global fetch costs about
 * four times as much CPU per call here, and the HTTP step is the engine's hottest path.
 *
 * It tells apart what matters for safe retries: the request never left this machine
 * versus it may have been received. A request can have left only once its socket was
 * connected (for https: once the TLS handshake was done), so every failure before that
 * (a refused address, no such host, a refused connection, a failed handshake, a header
 * the library will not write) is `not_sent`, and every failure after it `maybe_sent`.
 * The promise rejects only with an HttpFailure, never with a raw error.
 *
 * Connections go through the network policy's agents, whose `lookup` checks the address
 * each socket connects to; address literals are checked here, since no lookup happens
 * for them.
 */
import http from 'node:http';
import https from 'node:https';
import { AddressRefusedError, type NetworkPolicy } from '../network-policy.ts';
import { headerProblem } from './http-headers.ts';

export interface HttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export class HttpFailure extends Error {
  constructor(
    message: string,
    /** not_sent: the receiver cannot have seen it; maybe_sent: it may have acted. */
    readonly reach: 'not_sent' | 'maybe_sent',
    readonly code: string,
    /** Trying again cannot help (a refused address, a header that cannot be written). */
    readonly permanent = false,
  ) {
    super(message);
  }
}

const MAX_BODY = 5 * 1024 * 1024;

// Plain words for the usual reasons a connection is not made.
const UNREACHED: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up just now',
  EHOSTUNREACH: 'the network has no way to that host',
  ENETUNREACH: 'the network has no way to that host',
  EADDRNOTAVAIL: 'this machine cannot connect to that address',
};

function unreachedReason(code: string, message: string): string {
  const known = UNREACHED[code];
  if (known) return `${known}, ${code}`;
  if (/^ERR_TLS|CERT|SSL|EPROTO/.test(code)) return `the secure connection could not be set up, ${code}`;
  return message && message !== code ? `${message}, ${code}` : code;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export async function sendHttp(request: HttpRequest, network: NetworkPolicy): Promise<HttpResponse> {
  const { url } = request;
  try {
    await network.checkUrl(url);
  } catch (error) {
    throw new HttpFailure((error as Error).message, 'not_sent', 'EADDRESSREFUSED', true);
  }
  for (const [name, value] of Object.entries(request.headers)) {
    const problem = headerProblem(name, value);
    if (problem) throw new HttpFailure(`${problem} Nothing was sent.`, 'not_sent', 'EINVALIDHEADER', true);
  }
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    // True once the socket could carry the request (connected, and for https: handshake done).
    let connected = false;
    let outgoing: http.ClientRequest | undefined;
    const reach = () => (connected ? 'maybe_sent' : 'not_sent');
    const fail = (error: HttpFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      outgoing?.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(
          connected
            ? new HttpFailure(`no answer within ${seconds(request.timeoutMs)}`, 'maybe_sent', 'ETIMEDOUT')
            : new HttpFailure(`no connection within ${seconds(request.timeoutMs)}`, 'not_sent', 'ETIMEDOUT'),
        ),
      request.timeoutMs,
    );
    const onAbort = () => fail(new HttpFailure('the call was interrupted', reach(), 'EABORTED'));
    request.signal.addEventListener('abort', onAbort, { once: true });
    try {
      outgoing = transport.request(
        url,
        {
          method: request.method,
          headers: request.body === undefined ? request.headers : { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
          agent: network.agents[secure ? 'https:' : 'http:'],
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          let size = 0;
          incoming.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= MAX_BODY) chunks.push(chunk);
          });
          incoming.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            request.signal.removeEventListener('abort', onAbort);
            resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') });
          });
          incoming.on('error', (error: NodeJS.ErrnoException) =>
            fail(new HttpFailure(`the answer was cut off (${error.code ?? error.message})`, 'maybe_sent', error.code ?? 'ECUTOFF')),
          );
          incoming.on('aborted', () => fail(new HttpFailure('the answer was cut off', 'maybe_sent', 'ECUTOFF')));
        },
      );
    } catch (error) {
      // Raised while building the request (a method or header node:http will not write).
      const code = (error as NodeJS.ErrnoException).code ?? 'EINVALIDREQUEST';
      fail(new HttpFailure(`The request could not be written (${(error as Error).message}); nothing was sent.`, 'not_sent', code, true));
      return;
    }
    outgoing.on('socket', (socket) => {
      if (outgoing?.reusedSocket) connected = true;
      else socket.once(secure ? 'secureConnect' : 'connect', () => { connected = true; });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof AddressRefusedError) {
        fail(new HttpFailure(error.message, 'not_sent', error.code, true));
        return;
      }
      const code = error.code ?? 'EUNKNOWN';
      fail(connected ? new HttpFailure(code, 'maybe_sent', code) : new HttpFailure(unreachedReason(code, error.message), 'not_sent', code));
    });
    if (request.signal.aborted) onAbort();
    else outgoing.end(request.body);
  });
}
