import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

export function registerHealth(app: FastifyInstance, services: Services): void {
  app.get('/healthz', async (_request, reply) => {
    try {
      await services.db.get('SELECT 1 AS ok');
      return { ok: true, database: services.db.dialect };
    } catch {
      return reply.code(503).send({ ok: false, database: services.db.dialect });
    }
  });
}
