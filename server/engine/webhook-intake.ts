/**
 * Webhook deliveries, without any HTTP framework (DESIGN.md §6): parse the body, check the
 * signature, render the event id, then one transaction records the event and queues its
 * run — or counts a repeat. It never waits for the run. Refusals are counted with their
 * reason; their bodies are never stored.
 */
import { newId } from '../ids.ts';
import type { Db } from '../store/db.ts';
import { recordRejection } from '../store/inbound.ts';
import { ingestQueue } from '../store/ingest-queue.ts';
import type { IngestResult } from '../store/inbound.ts';
import { verifySignature } from '../webhooks/signatures.ts';
import { errorMessage } from './errors.ts';
import { parseDuration } from '../../core/duration.ts';
import { describeValueProblem, findValueProblem } from './input-limits.ts';
import { MAX_KEY_LENGTH } from './templates/lint-key.ts';
import { renderTemplate } from '../../core/templates/render.ts';
import type { TriggerDirectory } from './trigger-directory.ts';
import type { RunPlace } from './worker.ts';
import { runLeasedOnInsert, type NewRun } from '../store/runs.ts';
import { NO_ENGINE_METRICS, type EngineMetrics, type RefusalReason } from './engine-metrics.ts';
import type { Clock } from './types.ts';

export const MAX_WEBHOOK_BODY = 1024 * 1024;
/** Webhook ids are 32 base64url characters (ids.ts); anything else names no webhook. */
const HOOK_ID_SHAPE = /^[A-Za-z0-9_-]{1,100}$/;
// PostgreSQL cannot store NUL, and no sender means a tab or newline in an event id.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
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
  /** A place in this process's worker for a new run, written leased to it so it starts at once (worker.ts); none without a worker. */
  startNow?: () => RunPlace | null;
  /** Counts each delivery's result for /metrics (none when not given). */
  metrics?: EngineMetrics;
}

type ParsedBody = { ok: true; body: unknown } | { ok: false; status: number; reason: string };

/** The counted reason of a refusal the HTTP layer reports by its status alone. */
export function refusalReasonOf(status: number): RefusalReason {
  return status === 404 ? 'unknown_hook' : status === 413 ? 'too_large' : status === 415 ? 'unsupported_type' : status === 401 ? 'bad_signature' : status === 400 ? 'bad_body' : 'unreadable';
}

function parseBody(contentType: string | undefined, raw: Buffer): ParsedBody {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  let body: unknown;
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      body = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
    } catch (error) {
      return { ok: false, status: 400, reason: `The body is not valid JSON: ${errorMessage(error)}.` };
    }
  } else if (type === 'application/x-www-form-urlencoded') {
    body = parseForm(raw);
  } else {
    return { ok: false, status: 415, reason: `Send JSON (application/json) or a form (application/x-www-form-urlencoded), not ${type || 'a body without a content type'}.` };
  }
  // Before anything walks the value recursively (storing, templates, masking, the web).
  const problem = findValueProblem(body);
  return problem ? { ok: false, status: 400, reason: describeValueProblem('The body', problem) } : { ok: true, body };
}

/**
 * Every field stays a plain field, whatever its name: fields are gathered in a Map and
 * defined as own properties, so `__proto__`, `constructor` or `toString` never reach (or
 * collide with) Object.prototype. A repeated field becomes a list.
 */
function parseForm(raw: Buffer): Record<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) {
    const existing = fields.get(name);
    fields.set(name, existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]);
  }
  return Object.fromEntries(fields);
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
  const metrics = deps.metrics ?? NO_ENGINE_METRICS;
  const ingest = ingestQueue(db);

  async function reject(hookId: string, status: number, reason: string, counted: RefusalReason = refusalReasonOf(status)): Promise<IntakeAnswer> {
    metrics.delivery('refused', counted);
    const recordedAs = HOOK_ID_SHAPE.test(hookId) ? hookId : '(unknown)';
    await recordRejection(db, recordedAs, status, reason, clock.now()).catch(() => {});
    return { status, body: { error: reason } };
  }

  return {
    reject,

    /** Whether `hookId` is a webhook's address (a GET on it says so, and nothing more). */
    async isWebhook(hookId: string): Promise<boolean> {
      const trigger = HOOK_ID_SHAPE.test(hookId) ? await deps.triggers.find(hookId) : null;
      return trigger?.kind === 'trigger.webhook';
    },

    async receive(delivery: IncomingDelivery): Promise<IntakeAnswer> {
      const trigger = HOOK_ID_SHAPE.test(delivery.hookId) ? await deps.triggers.find(delivery.hookId) : null;
      if (!trigger || trigger.kind !== 'trigger.webhook') {
        // Only the start of what was sent is repeated back: the answer stays short whatever the path held.
        const shown = delivery.hookId.length > 12 ? `${delivery.hookId.slice(0, 12)}…` : delivery.hookId;
        return reject('(unknown)', 404, `No webhook has the id ${shown}; check the URL against the one shown on the webhook trigger in the editor.`);
      }
      const parsed = parseBody(delivery.contentType, delivery.rawBody);
      if (!parsed.ok) return reject(trigger.hookId, parsed.status, parsed.reason);

      const data = trigger.node.data as { eventId?: string; signature?: { scheme: 'standard-webhooks' | 'stripe' | 'hmac-sha256'; secret: string; header?: string }; dedupeWindow?: string };
      const now = clock.now();
      if (data.signature) {
        const secret = (await deps.secrets())[data.signature.secret];
        if (secret === undefined) {
          return reject(trigger.hookId, 401, `The signing secret "${data.signature.secret}" is not stored on this server, so no delivery can be verified.`, 'missing_secret');
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
        return reject(trigger.hookId, 400, `The delivery has no event id: ${errorMessage(error)}`, 'bad_event_id');
      }
      if (!eventId.trim()) return reject(trigger.hookId, 400, 'The delivery has an empty event id.', 'bad_event_id');
      if (eventId.length > MAX_KEY_LENGTH) return reject(trigger.hookId, 400, `The event id is longer than ${MAX_KEY_LENGTH} characters.`, 'bad_event_id');
      if (CONTROL_CHARACTER.test(eventId)) return reject(trigger.hookId, 400, 'The event id contains a control character (such as NUL, a tab or a line break); send it without one.', 'bad_event_id');

      // Brings the masker up to date in a process that runs no worker (cached: one small
      // query a second at most), so a secret set elsewhere is never stored here in clear.
      await deps.secrets().catch(() => undefined);
      // With a worker in this process that has room for a new run, the run is written
      // leased to that worker and starts without a lease statement of its own.
      const place = deps.startNow?.() ?? null;
      const run: NewRun = {
        id: newId('run'), flowId: trigger.flowId, versionId: trigger.versionId, input: { body: parsed.body, headers, receivedAt },
        triggerKind: 'webhook', triggerNode: trigger.nodeId, eventId, replayOf: null, createdAt: now, createdBy: 'webhook',
        ...(place ? { leaseTo: place.leaseTo } : {}),
      };
      // A group commit on SQLite, a batch statement on PostgreSQL (ingest-queue.ts): the
      // delivery is durable before it is acknowledged.
      let result: IngestResult;
      try {
        result = await ingest({
          inboundId: newId('inb'), hookId: trigger.hookId, eventId, run, eventData: { eventId },
          expiresAt: now + parseDuration(data.dedupeWindow ?? DEFAULT_DEDUPE_WINDOW),
        });
      } catch (error) {
        place?.giveBack();
        throw error;
      }
      let startedNow = false;
      if (place && !result.duplicate && result.status === 'running') {
        place.take(runLeasedOnInsert(run, place.leaseTo, result.seq));
        startedNow = true;
      } else place?.giveBack();
      if (result.duplicate) {
        metrics.delivery('duplicate');
        return { status: 200, body: { duplicate: true, runId: result.runId } };
      }
      metrics.delivery('accepted');
      if (!startedNow) deps.onQueued();
      return { status: 202, body: { runId: result.runId } };
    },
  };
}

export type WebhookIntake = ReturnType<typeof webhookIntake>;
