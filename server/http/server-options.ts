/**
 * Fastify's own limits for everything that reaches the port: how large a body may be and
 * how long a client may take to send it. Outside input must never tie up the server: a
 * sender that stalls or trickles is answered 408 and cut off, and every other request
 * goes on meanwhile (a waiting socket costs the event loop nothing).
 *
 * The defaults leave room for an honest sender on a bad link: 1 MiB, the largest webhook
 * body, arrives within 60 s at 20 KB/s; webhook senders themselves give up after 10–30 s.
 */
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyServerFactory } from 'fastify';

export interface HttpLimits {
  /** Largest body of any request (default: 1 MiB; webhooks check their own, also 1 MiB). */
  bodyLimitBytes: number;
  /** Largest request line and headers together (default: 16 KiB); larger answers 431. */
  maxHeaderBytes: number;
  /** The headers must have arrived this long after the request began (default: 15 s). */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived within this (default: 60 s). */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this (default: 72 s, longer than the 60 s of common proxies, so the proxy closes first). */
  keepAliveTimeoutMs: number;
  /**
   * A connection with no traffic either way is closed after this (default: 120 s): a
   * client that stops reading its answer. Longer than anything the server itself waits
   * for before answering (the sandbox's slowest latency is 60 s).
   */
  connectionTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  bodyLimitBytes: 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 72_000,
  connectionTimeoutMs: 120_000,
};

/** Fastify's options with these limits; tests pass short time-outs. */
export function httpServerOptions(overrides: Partial<HttpLimits> = {}): FastifyHttpOptions<Server> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...overrides };
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    logger: false,
    bodyLimit: limits.bodyLimitBytes,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // Node looks for overdue requests on this interval (its default, 30 s, would let a
      // stalled upload live up to 30 s past its time-out): a fifth of the shortest limit.
      connectionsCheckingInterval: Math.max(10, Math.min(5_000, Math.floor(shortest / 5))),
    },
    clientErrorHandler: answerBrokenRequest(limits),
  };
}

export const serverOptions = httpServerOptions();

/** Takes a request before Fastify sees it; returns false to leave it to Fastify. */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Fastify's own node:http server, made the way Fastify makes it (the same limits and
 * time-outs), with `fastPath` asked first about every request.
 */
export function serverWithFastPath(fastPath: FastPath): FastifyServerFactory<Server> {
  return (handler, options) => {
    const { http = {}, keepAliveTimeout, requestTimeout, connectionTimeout } = options as { http?: ServerOptions; keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number };
    const server = createServer(http, (request, response) => {
      if (!fastPath(request, response)) handler(request, response);
    });
    server.keepAliveTimeout = keepAliveTimeout;
    server.requestTimeout = requestTimeout;
    server.setTimeout(connectionTimeout);
    return server;
  };
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * Requests that never reached a route (too slow, headers too large, not HTTP) get a
 * plain sentence in the same `{ error }` shape as the webhook answers, then the
 * connection is closed.
 */
function answerBrokenRequest(limits: HttpLimits) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, title, message] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', `The request did not arrive in time (its headers within ${seconds(limits.headersTimeoutMs)}, all of it within ${seconds(limits.requestTimeoutMs)}), so the connection was closed. Send it again.`]
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request Header Fields Too Large', `The request's headers are larger than ${limits.maxHeaderBytes / 1024} KiB; send fewer or shorter headers.`]
          : [400, 'Bad Request', 'The request is not valid HTTP, so it could not be read.'];
    if (socket.writable) {
      const body = JSON.stringify({ error: message });
      socket.write(`HTTP/1.1 ${status} ${title}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy(error);
  };
}
