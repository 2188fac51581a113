/**
 * What a webhook sender is told when its delivery failed before or inside the intake, the
 * same whichever path took the request (hooks.ts through Fastify, hook-fast-path.ts before it).
 */
import { MAX_WEBHOOK_BODY, type IntakeAnswer, type WebhookIntake } from '../engine/webhook-intake.ts';
import { refusedValue, refusedValueMessage } from '../store/db-errors.ts';

export async function deliveryErrorAnswer(intake: WebhookIntake, hookId: string, error: unknown, log?: (error: unknown) => void): Promise<IntakeAnswer> {
  const { code, statusCode } = error as { code?: string; statusCode?: number };
  // A value the database refuses (PostgreSQL's NUL, a number out of range) is the
  // sender's to fix: a 500 would have them send it again forever.
  const refused = refusedValue(error);
  const status = code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 413 : code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 415 : refused ? 400 : (statusCode ?? 500);
  if (status >= 500) {
    log?.(error);
    return { status, body: { error: 'The delivery could not be recorded; send it again.' } };
  }
  const reason = refused
    ? refusedValueMessage(refused)
    : status === 413 ? `The body is larger than ${MAX_WEBHOOK_BODY / 1024 / 1024} MiB.`
    : status === 415 ? 'Send JSON (application/json) or a form (application/x-www-form-urlencoded).' : 'The delivery could not be read.';
  return intake.reject(hookId, status, reason);
}
