/**
 * Webhook deliveries, without any HTTP framework (DESIGN.md §6): parse the body, check the
 * signature, render the event id, then one transaction records the event and queues its
 * run — or counts a repeat. It never waits for the run. Refusals are counted with their
 * reason; their bodies are never stored.
 */
import { newId } from '../ids.ts';
import type { Db } from '../store/db.ts';
import { ingestDelivery, recordRejection } from '../store/inbound.ts';
import { verifySignature } from '../webhooks/signatures.ts';
import { errorMessage } from './errors.ts';
import { parseDuration } from './flow/duration.ts';
import { MAX_KEY_LENGTH } from './templates/lint-key.ts';
import { renderTemplate } from './templates/render.ts';
import type { TriggerDirectory } from './trigger-directory.ts';
import type { Clock } from './types.ts';

export const MAX_WEBHOOK_BODY = 1024 * 1024;
const DEFAULT_DEDUPE_WINDOW = '30d';
/** Never copied into a run: credentials and signatures. */
const PRIVATE_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'webhook-signature', 'stripe-signature']);

export interface IncomingDelivery {
  hookId: string;
  contentType: string | undefined;
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

export interface IntakeAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface WebhookIntakeDeps {
  db: Db;
  clock: Clock;
  triggers: TriggerDirectory;
  secrets(): Promise<Record<string, string>>;
  onQueued(): void;
}

function parseBody(contentType: string | undefined, raw: Buffer): { ok: true; body: unknown } | { ok: false; status: number; reason: string } {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      return { ok: true, body: raw.length === 0 ? {} : JSON.parse(raw.toString('utf8')) };
    } catch (error) {
      return { ok: false, status: 400, reason: `The body is not valid JSON: ${errorMessage(error)}.` };
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
    const body: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) {
      const existing = body[name];
      body[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
    return { ok: true, body };
  }
  return { ok: false, status: 415, reason: `Send JSON (application/json) or a form (application/x-www-form-urlencoded), not ${type || 'a body without a content type'}.` };
}

function publicHeaders(headers: IncomingDelivery['headers'], signatureHeader: string | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || PRIVATE_HEADERS.has(lower) || lower === signatureHeader) continue;
    kept[lower] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

export function webhookIntake(deps: WebhookIntakeDeps) {
  const { db, clock } = deps;

  async function reject(hookId: string, status: number, reason: string): Promise<IntakeAnswer> {
    await recordRejection(db, hookId, status, reason, clock.now()).catch(() => {});
    return { status, body: { error: reason } };
  }

  return {
    reject,

    async receive(delivery: IncomingDelivery): Promise<IntakeAnswer> {
      const trigger = await deps.triggers.find(delivery.hookId);
      if (!trigger || trigger.kind !== 'trigger.webhook') {
        return reject('(unknown)', 404, `No webhook has the id ${delivery.hookId.slice(0, 12)}…; check the URL.`);
      }
      const parsed = parseBody(delivery.contentType, delivery.rawBody);
      if (!parsed.ok) return reject(trigger.hookId, parsed.status, parsed.reason);

      const data = trigger.node.data as { eventId?: string; signature?: { scheme: 'standard-webhooks' | 'stripe' | 'hmac-sha256'; secret: string; header?: string }; dedupeWindow?: string };
      const now = clock.now();
      if (data.signature) {
        const secret = (await deps.secrets())[data.signature.secret];
        if (secret === undefined) {
          return reject(trigger.hookId, 401, `The signing secret "${data.signature.secret}" is not stored on this server, so no delivery can be verified.`);
        }
        const verdict = verifySignature({ ...data.signature, secret }, { rawBody: delivery.rawBody, headers: delivery.headers }, now);
        if (!verdict.ok) return reject(trigger.hookId, 401, verdict.reason);
      }

      const receivedAt = new Date(now).toISOString();
      const headers = publicHeaders(delivery.headers, data.signature?.header?.toLowerCase());
      let eventId: string;
      try {
        eventId = renderTemplate(data.eventId ?? '', { trigger: { body: parsed.body, headers: delivery.headers as Record<string, unknown>, receivedAt }, steps: {} });
      } catch (error) {
        return reject(trigger.hookId, 400, `The delivery has no event id: ${errorMessage(error)}`);
      }
      if (!eventId.trim()) return reject(trigger.hookId, 400, 'The delivery has an empty event id.');
      if (eventId.length > MAX_KEY_LENGTH) return reject(trigger.hookId, 400, `The event id is longer than ${MAX_KEY_LENGTH} characters.`);

      const runId = newId('run');
      // One statement on PostgreSQL, one group commit on SQLite: the delivery is durable
      // before it is acknowledged.
      const result = await db.durably((sql) =>
        ingestDelivery(sql, {
          inboundId: newId('inb'),
          hookId: trigger.hookId,
          eventId,
          expiresAt: now + parseDuration(data.dedupeWindow ?? DEFAULT_DEDUPE_WINDOW),
          eventData: { eventId },
          run: {
            id: runId, flowId: trigger.flowId, versionId: trigger.versionId, input: { body: parsed.body, headers, receivedAt },
            triggerKind: 'webhook', triggerNode: trigger.nodeId, eventId, replayOf: null, createdAt: now, createdBy: 'webhook',
          },
        }),
      );
      if (result.duplicate) return { status: 200, body: { duplicate: true, runId: result.runId } };
      deps.onQueued();
      return { status: 202, body: { runId: result.runId } };
    },
  };
}

export type WebhookIntake = ReturnType<typeof webhookIntake>;
