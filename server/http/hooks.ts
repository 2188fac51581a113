/**
 * POST /hooks/:hookId — a thin adapter over the engine's webhook intake, for the spellings
 * hook-fast-path.ts leaves to Fastify. Any other method on the same address — GET and HEAD
 * from a browser, PUT, PATCH or DELETE from a sender set up wrongly — is told to use POST
 * (hook-page.ts).
 */
import type { FastifyInstance } from 'fastify';
import { sendHookPage } from './hook-page.ts';
import { MAX_WEBHOOK_BODY, type WebhookIntake } from '../engine/webhook-intake.ts';
import { deliveryErrorAnswer } from './hook-errors.ts';

export async function registerHooks(app: FastifyInstance, intake: WebhookIntake, logFailure: (error: unknown) => void): Promise<void> {
  await app.register(async (scope) => {
    // Signatures are computed over the exact bytes, so the body stays raw here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BODY }, (_request, body, done) => done(null, body));

    scope.setErrorHandler(async (error, request, reply) => {
      const hookId = (request.params as { hookId?: string }).hookId ?? '(unknown)';
      // A body that could not be read (past the size limit, say) of a request that is not a
      // delivery: the answer is still that it starts nothing, and no refusal is counted.
      if (request.method !== 'POST') return sendHookPage(request, reply, await intake.isWebhook(hookId));
      const answer = await deliveryErrorAnswer(intake, hookId, error, logFailure);
      return reply.code(answer.status).send(answer.body);
    });

    // A sender may be given the address with a slash at its end; it is the same webhook.
    for (const path of ['/hooks/:hookId', '/hooks/:hookId/']) {
      scope.route<{ Params: { hookId: string } }>({
        method: ['GET', 'PUT', 'PATCH', 'DELETE'],
        url: path,
        handler: async (request, reply) => sendHookPage(request, reply, await intake.isWebhook(request.params.hookId)),
      });

      scope.post<{ Params: { hookId: string } }>(path, async (request, reply) => {
        const answer = await intake.receive({
          hookId: request.params.hookId,
          contentType: request.headers['content-type'],
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          headers: request.headers,
        });
        // Pre-serialised: the answer is tiny and fixed in shape, Fastify need not inspect it.
        return reply.code(answer.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(answer.body));
      });
    }
  });
}
