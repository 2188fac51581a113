/**
 * Fastify's own limits for everything that reaches the port: how large a body may be and
 * how long a client may take to send it. Outside input must never tie up the server.
 */
import type { FastifyServerOptions } from 'fastify';

export const serverOptions: FastifyServerOptions = {
  logger: false,
  bodyLimit: 1024 * 1024,
};
