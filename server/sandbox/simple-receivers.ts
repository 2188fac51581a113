/**
 * Stand-in receivers that honour nothing, like most real systems: a CRM
 * (POST /sandbox/crm/contacts, /sandbox/crm/records, or any other collection such as
 * /sandbox/crm/invoices) and a Slack-compatible chat webhook
 * (POST /sandbox/chat/messages with `{ "text": … }`). Every arrival is an effect, so a
 * flow that sends the same thing twice shows up in the ledger as a duplicate.
 *
 * Also the helpers every HTTP receiver shares: the person's latency, simulated failures
 * and "act, then drop the answer".
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ledger, ReceiverName, SandboxSettings } from './ledger.ts';

export interface ReceiverDeps {
  ledger: Ledger;
  settings: SandboxSettings;
}

export function newObjectId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

export function pause(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** The body as an object: JSON objects as they are, anything else is refused by the caller. */
export function bodyObject(body: unknown): Record<string, unknown> | undefined {
  if (body === undefined || body === null || body === '') return {};
  return typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

export function headerText(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** The sender's reference: the body's `ref` when it has one. */
export function bodyReference(body: Record<string, unknown>): string | null {
  const ref = body.ref;
  return typeof ref === 'string' || typeof ref === 'number' ? String(ref) : null;
}

/** Acted, but the sender never hears so: the connection is cut without an answer. */
export function dropAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  request.raw.socket.destroy();
}

export function simulatedFailure(reply: FastifyReply, what: string): FastifyReply {
  return reply.code(500).send({ error: { type: 'simulated_failure', message: `The sandbox simulated a failure, as its settings ask; ${what}.` } });
}

interface SimpleRoute {
  receiver: ReceiverName;
  path: string;
  kind: string;
  prefix: string;
  /** Refuses a body the real service would refuse, before acting; a message or nothing. */
  check?(body: Record<string, unknown>): string | undefined;
  answer(object: Record<string, unknown>, reply: FastifyReply): FastifyReply;
}

const ROUTES: SimpleRoute[] = [
  {
    // Contacts (ct_…) and records (rec_…); any other collection works too (invoices, deals …).
    receiver: 'crm', path: '/crm/:collection', kind: 'record', prefix: 'rec',
    answer: (object, reply) => reply.code(201).send(object),
  },
  {
    // Slack answers a text/plain "ok", and 400 "no_text" when the message is empty.
    receiver: 'chat', path: '/chat/messages', kind: 'message', prefix: 'msg',
    check: (body) => (typeof body.text === 'string' && body.text.trim() !== '' ? undefined : 'no_text'),
    answer: (_object, reply) => reply.code(200).type('text/plain; charset=utf-8').send('ok'),
  },
];

const COLLECTION = /^[a-z][a-z0-9_-]{0,39}$/;

/** What a CRM collection holds and how its ids start: contacts → contact, ct_. */
function crmKind(collection: string): { kind: string; prefix: string } {
  if (collection === 'contacts') return { kind: 'contact', prefix: 'ct' };
  if (collection === 'records') return { kind: 'record', prefix: 'rec' };
  const kind = collection.endsWith('s') ? collection.slice(0, -1) : collection;
  return { kind, prefix: kind.replace(/[^a-z0-9]/g, '').slice(0, 4) || 'rec' };
}

/** Registers the CRM and chat routes on a scope prefixed with /sandbox. */
export function registerSimpleReceivers(scope: FastifyInstance, { ledger, settings }: ReceiverDeps): void {
  for (const route of ROUTES) {
    scope.post(route.path, async (request, reply) => {
      let { kind, prefix } = route;
      const collection = (request.params as { collection?: string }).collection;
      if (collection !== undefined) {
        if (!COLLECTION.test(collection)) {
          return reply.code(404).send({ error: { type: 'not_found', message: `The sandbox CRM has no collection "${collection}"; use lower-case letters, e.g. contacts or records.` } });
        }
        ({ kind, prefix } = crmKind(collection));
      }
      const body = bodyObject(request.body);
      const key = headerText(request, 'idempotency-key') ?? null;
      const base = { kind, key, reference: body ? bodyReference(body) : null, data: request.body };
      const refusal = body ? route.check?.(body) : 'The body must be a JSON object.';
      if (refusal !== undefined) {
        ledger.record(route.receiver, { ...base, outcome: 'refused' });
        return route.receiver === 'chat' ? reply.code(400).type('text/plain; charset=utf-8').send(refusal) : reply.code(400).send({ error: { type: 'invalid_request', message: refusal } });
      }
      const current = settings.get(route.receiver);
      await pause(current.latencyMs);
      if (settings.rollFailure(route.receiver)) {
        ledger.record(route.receiver, { ...base, outcome: 'failed' });
        return simulatedFailure(reply, `no ${kind} was created`);
      }
      const object = { ...body, id: newObjectId(prefix), object: kind, created: Math.floor(Date.now() / 1000) };
      if (current.dropAnswer) {
        ledger.record(route.receiver, { ...base, objectId: object.id, outcome: 'created_unanswered' });
        return dropAnswer(request, reply);
      }
      ledger.record(route.receiver, { ...base, objectId: object.id, outcome: 'created' });
      return route.answer(object, reply);
    });
  }
}
