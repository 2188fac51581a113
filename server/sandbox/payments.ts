/**
 * A stand-in payments service that honours `Idempotency-Key` the way Stripe does:
 * - a new key is remembered with the request's parameters, and the first answer;
 * - the same key and parameters again → that first answer (same status and body, with
 *   `Idempotent-Replayed: true`), nothing is charged twice;
 * - the same key with other parameters → 422, nothing happens;
 * - the same key while the first request is still being handled → 409, try again;
 * - a failure (a simulated 500) is not remembered, so a retry with the key acts.
 * POST /sandbox/payments/charges (ch_…) and /sandbox/payments/invoices (in_…).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { stableStringify } from '../engine/step-runtime.ts';
import { bodyObject, bodyReference, dropAnswer, headerText, newObjectId, pause, simulatedFailure, type ReceiverDeps } from './simple-receivers.ts';

type Remembered =
  | { state: 'in_flight'; parameters: string }
  | { state: 'done'; parameters: string; status: number; body: unknown };

/** Keys the payments receiver has seen; forgotten when the sandbox is reset. */
export class PaymentKeys {
  readonly keys = new Map<string, Remembered>();

  clear(): void {
    this.keys.clear();
  }
}

const KINDS = [
  { path: '/payments/charges', kind: 'charge', prefix: 'ch' },
  { path: '/payments/invoices', kind: 'invoice', prefix: 'in' },
] as const;

function idempotencyError(reply: FastifyReply, status: 409 | 422, message: string): FastifyReply {
  return reply.code(status).send({ error: { type: 'idempotency_error', message } });
}

export function registerPayments(scope: FastifyInstance, { ledger, settings }: ReceiverDeps, memory: PaymentKeys): void {
  for (const route of KINDS) {
    scope.post(route.path, async (request, reply) => {
      const body = bodyObject(request.body);
      const key = headerText(request, 'idempotency-key') ?? null;
      const base = { kind: route.kind, key, reference: body ? bodyReference(body) : null, data: request.body };
      if (!body) {
        ledger.record('payments', { ...base, outcome: 'refused' });
        return reply.code(400).send({ error: { type: 'invalid_request_error', message: 'The body must be a JSON object.' } });
      }
      // The path is part of the parameters: one key cannot both charge and invoice.
      const parameters = stableStringify({ path: route.path, body });

      if (key !== null) {
        const seen = memory.keys.get(key);
        if (seen && seen.parameters !== parameters) {
          ledger.record('payments', { ...base, outcome: 'refused' });
          return idempotencyError(reply, 422, `The key "${key}" was already used with different parameters, so this request was not carried out. Use a new key for a different payment.`);
        }
        if (seen?.state === 'in_flight') {
          ledger.record('payments', { ...base, outcome: 'in_flight' });
          return idempotencyError(reply, 409, `A request with the key "${key}" is still being handled; try again in a moment.`);
        }
        if (seen?.state === 'done') {
          ledger.record('payments', { ...base, objectId: (seen.body as { id?: string }).id ?? null, outcome: 'replayed' });
          return reply.code(seen.status).header('idempotent-replayed', 'true').send(seen.body);
        }
        // Marked before any await, so a concurrent twin finds it in flight.
        memory.keys.set(key, { state: 'in_flight', parameters });
      }

      const current = settings.get('payments');
      await pause(current.latencyMs);
      if (settings.rollFailure('payments')) {
        if (key !== null) memory.keys.delete(key);
        ledger.record('payments', { ...base, outcome: 'failed' });
        return simulatedFailure(reply, `no ${route.kind} was created and nothing was charged`);
      }
      const object = {
        ...body,
        id: newObjectId(route.prefix),
        object: route.kind,
        status: route.kind === 'charge' ? 'succeeded' : 'open',
        created: Math.floor(Date.now() / 1000),
      };
      if (key !== null) memory.keys.set(key, { state: 'done', parameters, status: 200, body: object });
      if (current.dropAnswer) {
        ledger.record('payments', { ...base, objectId: object.id, outcome: 'created_unanswered' });
        return dropAnswer(request, reply);
      }
      ledger.record('payments', { ...base, objectId: object.id, outcome: 'created' });
      return reply.code(200).send(object);
    });
  }
}
