import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { queueStatus } from '../store/workers.ts';

/** Liveness plus what an operator wants first: workers seen, queue depth, oldest queued run. */
export function registerHealth(app: FastifyInstance, services: Services): void {
  app.get('/healthz', async (_request, reply) => {
    try {
      const now = services.clock.now();
      const status = await queueStatus(services.db, now, now - 3 * services.env.ONCEFLOW_LEASE_MS);
      return {
        ok: true,
        database: services.db.dialect,
        workers: status.workers.length,
        queueDepth: status.queueDepth,
        oldestQueuedAt: status.oldestQueuedAt === null ? null : new Date(status.oldestQueuedAt).toISOString(),
      };
    } catch {
      return reply.code(503).send({ ok: false, database: services.db.dialect });
    }
  });
}
