/**
 * POST /hooks/:hookId straight from node:http, ahead of Fastify's router. Webhook intake
 * is the one route that takes load from outside at high rates, and it needs nothing
 * Fastify gives other routes: it is public (no session, any Host, see guard.ts), reads
 * its body raw and answers a small fixed JSON shape. Measured on a 2-core machine,
 * Fastify's request and reply objects cost a webhook about a tenth of its time.
 *
 * Only the canonical spelling is taken here (with or without a slash at its end); any other
 * request, or another spelling of the same address, goes on to Fastify, whose hooks route
 * (hooks.ts) answers it the same way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_WEBHOOK_BODY, type IntakeAnswer, type WebhookIntake } from '../engine/webhook-intake.ts';
import { deliveryErrorAnswer } from './hook-errors.ts';

const CANONICAL_HOOK_PATH = /^\/hooks\/([A-Za-z0-9_-]{1,100})\/?(?:\?|$)/;

/** Returns whether it took the request; when it did, it answers it too. */
export function hookFastPath(intake: WebhookIntake, logFailure: (error: unknown) => void): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    if (request.method !== 'POST') return false;
    const hookId = CANONICAL_HOOK_PATH.exec(request.url ?? '')?.[1];
    if (!hookId) return false;
    receive(intake, hookId, request, response, logFailure).catch((error: unknown) => {
      logFailure(error);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error: 'The delivery could not be recorded; send it again.' }));
    });
    return true;
  };
}

async function receive(intake: WebhookIntake, hookId: string, request: IncomingMessage, response: ServerResponse, logFailure: (error: unknown) => void): Promise<void> {
  let answer: IntakeAnswer;
  try {
    const rawBody = await readBody(request);
    answer = rawBody === 'too-large'
      ? await intake.reject(hookId, 413, `The body is larger than ${MAX_WEBHOOK_BODY / 1024 / 1024} MiB.`)
      : await intake.receive({ hookId, contentType: request.headers['content-type'], rawBody, headers: request.headers });
  } catch (error) {
    answer = await deliveryErrorAnswer(intake, hookId, error, logFailure);
  }
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(answer.body);
  response.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** The body as sent, or 'too-large' past the webhook limit (the rest is then read and dropped, so the answer can still be sent). */
function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  const declared = Number(request.headers['content-length']);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > MAX_WEBHOOK_BODY;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_WEBHOOK_BODY) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? 'too-large' : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    request.on('error', reject);
  });
}
