/**
 * Who may reach which route, decided on the route Fastify matched — never on the request's
 * URL text, which can be spelled many ways (`/%74rpc`, `//trpc`, `/./trpc`) that the router
 * decodes to the same route.
 *
 * Default deny: a route needs a session or token (when a password is set) and a Host that
 * names this server, unless the scope that registered it opened it with `openRoutes`:
 * - `open`: no session needed, Host still checked (login, the web app's files, the sandbox's
 *   stand-in receivers, which steps call like any outside service);
 * - `public`: no session and any Host (webhooks and /healthz, which senders and load
 *   balancers reach under names of their own).
 * A request no route matches only ever gets index.html or a 404, so it counts as `open`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Access } from '../auth/access.ts';
import type { HostPolicy } from '../auth/hosts.ts';
import { credentialOf } from './auth.ts';

export type RouteAccess = 'session' | 'open' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/** Marks every route registered in `scope` (and its children) with `access`. */
export function openRoutes(scope: FastifyInstance, access: Exclude<RouteAccess, 'session'>): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...(route.config as object), access };
  });
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function refuse(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.code(status).header('cache-control', 'no-store').send({ error: { message, code } });
}

function accessOf(request: FastifyRequest): RouteAccess {
  if (request.is404) return 'open';
  return request.routeOptions.config.access ?? 'session';
}

/** Must be registered on the root instance before any route, so it guards all of them. */
export function registerGuard(app: FastifyInstance, access: Access, hosts: HostPolicy): void {
  app.addHook('onRequest', async (request, reply) => {
    const level = accessOf(request);
    if (level === 'public') return;

    if (!hosts.accepts(request.headers.host)) {
      return refuse(reply, 421, 'UNKNOWN_HOST',
        `This Onceflow server does not answer to the name "${request.headers.host}". If that is how people reach it, add the address to ONCEFLOW_PUBLIC_URL.`);
    }
    const origin = request.headers.origin;
    const crossSite = request.headers['sec-fetch-site'] === 'cross-site';
    if (STATE_CHANGING.has(request.method) && ((origin !== undefined && !hosts.acceptsOrigin(origin)) || crossSite)) {
      return refuse(reply, 403, 'FOREIGN_ORIGIN',
        `Changes are only accepted from Onceflow's own pages; this request came from ${origin ?? 'another site'}.`);
    }
    if (level === 'session' && !access.verify(credentialOf(request))) {
      return refuse(reply, 401, 'UNAUTHORIZED', 'Log in first: this Onceflow server needs the admin password.');
    }
  });
}
