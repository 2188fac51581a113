/**
 * POST /hooks/:hookId — a thin adapter over the engine's webhook intake. GET (and HEAD) on
 * the same address answer a person who opened it in a browser (hook-page.ts).
 */
import type { FastifyInstance } from 'fastify';
import { sendHookPage } from './hook-page.ts';
import { MAX_WEBHOOK_BODY, type WebhookIntake } from '../engine/webhook-intake.ts';
import { refusedValue, refusedValueMessage } from '../store/db-errors.ts';

export async function registerHooks(app: FastifyInstance, intake: WebhookIntake): Promise<void> {
  await app.register(async (scope) => {
    // Signatures are computed over the exact bytes, so the body stays raw here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BODY }, (_request, body, done) => done(null, body));

    scope.setErrorHandler(async (error: { code?: string; statusCode?: number; message: string }, request, reply) => {
      const hookId = (request.params as { hookId?: string }).hookId ?? '(unknown)';
      // A value the database refuses (PostgreSQL's NUL, a number out of range) is the
      // sender's to fix: a 500 would have them send it again forever.
      const refused = refusedValue(error);
      const status = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 413 : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 415 : refused ? 400 : (error.statusCode ?? 500);
      const reason = refused
        ? refusedValueMessage(refused)
        : status === 413 ? `The body is larger than ${MAX_WEBHOOK_BODY / 1024 / 1024} MiB.`
        : status === 415 ? 'Send JSON (application/json) or a form (application/x-www-form-urlencoded).' : 'The delivery could not be read.';
      if (status >= 500) request.log.error({ err: error }, 'webhook delivery failed');
      const answer = status < 500 ? await intake.reject(hookId, status, reason) : { status, body: { error: 'The delivery could not be recorded; send it again.' } };
      return reply.code(answer.status).send(answer.body);
    });

    scope.get<{ Params: { hookId: string } }>('/hooks/:hookId', async (request, reply) =>
      sendHookPage(request, reply, await intake.isWebhook(request.params.hookId)));

    scope.post<{ Params: { hookId: string } }>('/hooks/:hookId', async (request, reply) => {
      const answer = await intake.receive({
        hookId: request.params.hookId,
        contentType: request.headers['content-type'],
        rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        headers: request.headers,
      });
      // Pre-serialised: the answer is tiny and fixed in shape, Fastify need not inspect it.
      return reply.code(answer.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(answer.body));
    });
  });
}
