/**
 * A recovery report as a file to download: `/api/operations/:id/report.csv` (one line per
 * run) and `report.json` (everything). Registered without `openRoutes`, so the guard asks
 * for a session or token like every page of the app (http/guard.ts).
 */
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../engine/errors.ts';
import { reportCsv } from '../engine/recovery/report.ts';
import type { Services } from '../services.ts';

const ID = /^[A-Za-z0-9_-]{1,200}$/;

export function registerOperationReports(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { id: string; format: string } }>('/api/operations/:id/report.:format', async (request, reply) => {
    const { id, format } = request.params;
    if (!ID.test(id) || (format !== 'csv' && format !== 'json')) {
      return reply.code(404).send({ error: { message: 'There is no such report. Reports are report.csv or report.json.', code: 'NOT_FOUND' } });
    }
    try {
      const report = await services.recoveries.report(id);
      const file = `recovery-${id}.${format}`;
      reply.header('content-disposition', `attachment; filename="${file}"`).header('cache-control', 'no-store');
      const body = format === 'csv' ? reportCsv(report) : JSON.stringify(report, null, 2);
      return reply.type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8').send(services.db.masker.text(body));
    } catch (error) {
      if (error instanceof NotFoundError) return reply.code(404).send({ error: { message: error.message, code: 'NOT_FOUND' } });
      throw error;
    }
  });
}
