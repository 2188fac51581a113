/** GET /metrics in Prometheus text format; guard.ts lets in a session or the metrics token. */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';

export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (request, reply) => {
    try {
      const text = await metrics.registry.metrics();
      return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(text);
    } catch (error) {
      request.log.error({ err: error }, 'metrics could not be read');
      return reply.code(503).header('cache-control', 'no-store').send({ error: { message: 'The metrics could not be read from the database; try again shortly.', code: 'METRICS_UNAVAILABLE' } });
    }
  });
}
