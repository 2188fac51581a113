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
 *   balancers reach under names of their own);
 * - `metrics`: as `session`, or the metrics token (ONCEFLOW_METRICS_TOKEN) as a bearer
 *   token from any Host: a scraper names the server by its address, and a token no
 *   browser sends on its own needs no Host check against DNS rebinding.
 * A request no route matches only ever gets index.html or a 404, so it counts as `open`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Access } from '../auth/access.ts';
import type { HostPolicy } from '../auth/hosts.ts';
import { credentialOf } from './auth.ts';

export type RouteAccess = 'session' | 'open' | 'public' | 'metrics';

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

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether the request carries the metrics token; compared in constant time. */
function hasMetricsToken(request: FastifyRequest, token: string | undefined): boolean {
  const header = request.headers.authorization;
  if (!token || !header?.startsWith('Bearer ')) return false;
  return timingSafeEqual(digest(header.slice(7).trim()), digest(token));
}

/** Must be registered on the root instance before any route, so it guards all of them. */
export function registerGuard(app: FastifyInstance, access: Access, hosts: HostPolicy, options: { metricsToken?: string } = {}): void {
  app.addHook('onRequest', async (request, reply) => {
    const level = accessOf(request);
    if (level === 'public') return;
    if (level === 'metrics' && hasMetricsToken(request, options.metricsToken)) return;

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
    if ((level === 'session' || level === 'metrics') && !access.verify(credentialOf(request))) {
      return refuse(reply, 401, 'UNAUTHORIZED', level === 'metrics'
        ? 'Log in first, or send the metrics token (ONCEFLOW_METRICS_TOKEN) as "Authorization: Bearer <token>".'
        : 'Log in first: this Onceflow server needs the admin password.');
    }
  });
}
