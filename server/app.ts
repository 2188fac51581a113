/**
 * The HTTP process: web app, /trpc, /hooks, /healthz, /metrics, and (unless told not to) the
 * embedded worker. `createServer` only wires; `start` opens the port.
 */
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { UserError } from './engine/errors.ts';
import type { Env } from './env.ts';
import { checkExposure, createAccess, isLoopback } from './auth/access.ts';
import { createHostPolicy } from './auth/hosts.ts';
import { registerAuth } from './http/auth.ts';
import { openRoutes, registerGuard } from './http/guard.ts';
import { registerHealth } from './http/health.ts';
import { registerHooks } from './http/hooks.ts';
import { registerOperationReports } from './http/operation-report.ts';
import { registerMetrics } from './http/metrics.ts';
import { httpServerOptions, serverWithFastPath, type HttpLimits } from './http/server-options.ts';
import { hookFastPath } from './http/hook-fast-path.ts';
import { registerStatic } from './http/static.ts';
import { registerSandbox } from './sandbox/plugin.ts';
import { createServices, type Services } from './services.ts';
import { appRouter, type AppRouter } from './trpc/router.ts';

export interface ServerOptions {
  env: Env;
  /** Run the embedded worker (default: true). */
  worker?: boolean;
  /** Body size and time-outs for every request (default: DEFAULT_HTTP_LIMITS). */
  http?: Partial<HttpLimits>;
}

export interface RunningServer {
  url: string;
  services: Services;
  stop(): Promise<void>;
}

async function buildHttp(services: Services, limits: Partial<HttpLimits> = {}): Promise<FastifyInstance> {
  // Webhook deliveries are answered before Fastify's router (hook-fast-path.ts).
  const logFailure = (error: unknown) => services.log.error({ err: error }, 'webhook delivery failed');
  const fastPath = hookFastPath(services.webhooks, logFailure);
  const app = Fastify({ ...httpServerOptions(limits), serverFactory: serverWithFastPath(fastPath) });
  const { env } = services;
  const access = createAccess(env.ONCEFLOW_ADMIN_PASSWORD);
  // First, so that every route registered after it is guarded (default deny).
  registerGuard(app, access, createHostPolicy({ bindHost: env.HOST, publicUrls: env.ONCEFLOW_PUBLIC_URL }), { metricsToken: env.ONCEFLOW_METRICS_TOKEN });
  await app.register(async (publicScope) => {
    openRoutes(publicScope, 'public');
    registerHealth(publicScope, services);
    await registerHooks(publicScope, services.webhooks, logFailure);
  });
  await app.register(async (metricsScope) => {
    openRoutes(metricsScope, 'metrics');
    registerMetrics(metricsScope, services.metrics);
  });
  await app.register(async (openScope) => {
    openRoutes(openScope, 'open');
    registerAuth(openScope, access);
    await registerStatic(openScope);
  });
  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: () => ({ services, user: 'admin' }),
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });
  registerOperationReports(app, services);
  if (services.sandbox) await registerSandbox(app, services.sandbox);
  return app;
}

/**
 * Only /metrics, for a process that serves no app (`onceflow worker --metrics-port`): its
 * counters are its own, so a worker must be scraped too. Exposed, it needs the admin
 * password's login or the metrics token, like the app's /metrics; with only the token,
 * nothing but the token lets a scraper in.
 */
export async function startMetricsServer(services: Services, port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const { env } = services;
  if (!isLoopback(env.HOST) && !env.ONCEFLOW_ADMIN_PASSWORD && !env.ONCEFLOW_METRICS_TOKEN) {
    throw new UserError(`Onceflow will not serve metrics on ${env.HOST} without a login: set ONCEFLOW_METRICS_TOKEN (or ONCEFLOW_ADMIN_PASSWORD), or keep HOST=127.0.0.1.`);
  }
  const app = Fastify(httpServerOptions());
  const open = createAccess(env.ONCEFLOW_ADMIN_PASSWORD);
  const access = isLoopback(env.HOST) || env.ONCEFLOW_ADMIN_PASSWORD ? open : { ...open, required: true, verify: () => false };
  registerGuard(app, access, createHostPolicy({ bindHost: env.HOST, publicUrls: env.ONCEFLOW_PUBLIC_URL }), { metricsToken: env.ONCEFLOW_METRICS_TOKEN });
  await app.register(async (metricsScope) => {
    openRoutes(metricsScope, 'metrics');
    registerMetrics(metricsScope, services.metrics);
  });
  await app.listen({ port, host: env.HOST }).catch((error: unknown) => {
    if ((error as { code?: string }).code === 'EADDRINUSE') throw new UserError(`Port ${port} on ${env.HOST} is already in use; choose another --metrics-port.`, { cause: error });
    throw error;
  });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const host = env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST;
  return { url: `http://${host}:${bound}`, stop: () => app.close() };
}

export function createServer(options: ServerOptions) {
  return {
    async start(): Promise<RunningServer> {
      const { env } = options;
      checkExposure(env.HOST, env.ONCEFLOW_ADMIN_PASSWORD);
      const services = await createServices(env);
      const app = await buildHttp(services, options.http);
      try {
        await app.listen({ port: env.PORT, host: env.HOST });
      } catch (error) {
        await services.close();
        if ((error as { code?: string }).code === 'EADDRINUSE') {
          throw new UserError(`Port ${env.PORT} on ${env.HOST} is already in use; stop the other program or set PORT to a free port.`, { cause: error });
        }
        if ((error as { code?: string }).code === 'EADDRNOTAVAIL') {
          throw new UserError(`This machine has no address ${env.HOST}; set HOST to one of its addresses (default 127.0.0.1).`, { cause: error });
        }
        throw error;
      }
      if (services.sandbox) {
        // The HTTP receivers work without the SMTP one; a taken port is worth a warning, not a refusal.
        await services.sandbox.start().catch((error: unknown) => console.warn(`Sandbox email receiver not started: ${(error as Error).message}`));
      }
      if (options.worker !== false) services.startWorker();
      else services.takeUpRecoveries();
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : env.PORT;
      const host = env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST;
      const reachable = env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST === '::' ? '[::1]' : host;
      services.publicUrl = `http://${reachable}:${port}`;
      return {
        url: `http://${host}:${port}`,
        services,
        async stop() {
          await app.close();
          await services.close();
        },
      };
    },
  };
}
