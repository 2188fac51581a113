/**
 * A small HTTP client on node:http with keep-alive agents. The global fetch costs about
 * four times as much CPU per call here, and the HTTP step is the engine's hottest path.
 * It tells apart what matters for safe retries: the request never left (connection
 * refused, no such host) versus it may have been received (timeout, reset).
 */
import http from 'node:http';
import https from 'node:https';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

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
  ) {
    super(message);
  }
}

const NOTHING_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);
const MAX_BODY = 5 * 1024 * 1024;

export function sendHttp(request: HttpRequest): Promise<HttpResponse> {
  const { url } = request;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: HttpFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      outgoing.destroy();
      reject(error);
    };
    const outgoing = transport.request(
      url,
      {
        method: request.method,
        headers: request.body === undefined ? request.headers : { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
        agent: agents[url.protocol as keyof typeof agents],
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
    const timer = setTimeout(
      () => fail(new HttpFailure(`no answer within ${Math.round(request.timeoutMs / 100) / 10} s`, 'maybe_sent', 'ETIMEDOUT')),
      request.timeoutMs,
    );
    const onAbort = () => fail(new HttpFailure('the call was interrupted', 'maybe_sent', 'EABORTED'));
    request.signal.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'EUNKNOWN';
      fail(new HttpFailure(code, NOTHING_SENT.has(code) ? 'not_sent' : 'maybe_sent', code));
    });
    outgoing.end(request.body);
  });
}
