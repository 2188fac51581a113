/**
 * The sandbox payments receiver over real HTTP: Stripe-like idempotency keys (replay,
 * 422 for other parameters, 409 while in flight, one payment for a crowd of twins), and
 * simulated failures that are not remembered.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxApp, type SandboxApp } from '../testing/sandbox-app.ts';
import type { Sandbox } from './plugin.ts';

describe('sandbox payments', () => {
  let served: SandboxApp;
  let sandbox: Sandbox;
  let base: string;

  beforeAll(async () => {
    served = await startSandboxApp({ smtp: false });
    ({ sandbox, base } = served);
  });
  beforeEach(() => {
    sandbox.reset();
    sandbox.settings.reset();
  });
  afterAll(async () => {
    await served?.close();
  });

  const charge = (body: unknown, key?: string) =>
    fetch(`${base}/payments/charges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });

  it('answers a repeated key with the first answer and charges once', async () => {
    const first = await charge({ ref: 'order-1', amount: 1200, currency: 'eur' }, 'key-1');
    const firstBody = (await first.json()) as { id: string; amount: number };
    expect(first.status).toBe(200);
    expect(firstBody.id).toMatch(/^ch_[0-9a-f]{24}$/);
    expect(firstBody.amount).toBe(1200);

    const again = await charge({ ref: 'order-1', amount: 1200, currency: 'eur' }, 'key-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);

    expect(sandbox.ledger.summary('payments')).toMatchObject({ arrivals: 2, effects: 1 });
    expect(sandbox.ledger.entries('payments').map((entry) => entry.outcome)).toEqual(['created', 'replayed']);
  });

  it('refuses the same key with different parameters with 422 and does nothing', async () => {
    expect((await charge({ ref: 'order-2', amount: 500 }, 'key-2')).status).toBe(200);
    const other = await charge({ ref: 'order-2', amount: 9_999 }, 'key-2');
    expect(other.status).toBe(422);
    const body = (await other.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('idempotency_error');
    expect(body.error.message).toContain('already used with different parameters');
    const invoice = await fetch(`${base}/payments/invoices`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'key-2' }, body: JSON.stringify({ ref: 'order-2', amount: 500 }),
    });
    expect(invoice.status).toBe(422);
    expect(sandbox.ledger.summary('payments')).toMatchObject({ arrivals: 3, effects: 1 });
  });

  it('creates one payment for 20 concurrent identical requests with one key', async () => {
    sandbox.settings.configure('payments', { latencyMs: 100 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await charge({ ref: 'order-3', amount: 700 }, 'key-3');
        return { status: response.status, body: (await response.json()) as { id?: string } };
      }),
    );
    const created = answers.filter((answer) => answer.status === 200);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    expect(sandbox.ledger.effectsFor('payments', 'key-3')).toBe(1);
    expect(sandbox.ledger.summary('payments')).toMatchObject({ arrivals: 20, effects: 1 });

    // Once settled, every twin gets the first answer.
    const late = await charge({ ref: 'order-3', amount: 700 }, 'key-3');
    expect(((await late.json()) as { id: string }).id).toBe(created[0]!.body.id);
  });

  it('does not remember a simulated failure, so a retry with the key acts', async () => {
    sandbox.settings.configure('payments', { failureRate: 1 });
    const failed = await charge({ ref: 'order-4', amount: 10 }, 'key-4');
    expect(failed.status).toBe(500);
    sandbox.settings.configure('payments', { failureRate: 0 });
    const retried = await charge({ ref: 'order-4', amount: 10 }, 'key-4');
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(sandbox.ledger.entries('payments').map((entry) => entry.outcome)).toEqual(['failed', 'created']);
  });

  it('acts, then drops the answer; the same key then gets the answer it missed', async () => {
    sandbox.settings.configure('payments', { dropAnswer: true });
    await expect(charge({ ref: 'order-5', amount: 10 }, 'key-5')).rejects.toThrow();
    const retried = await charge({ ref: 'order-5', amount: 10 }, 'key-5');
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(sandbox.ledger.entries('payments').map((entry) => entry.outcome)).toEqual(['created_unanswered', 'replayed']);
    expect(sandbox.ledger.effectsFor('payments', 'key-5')).toBe(1);
  });

  it('charges every time when no key is sent, and forgets keys on reset', async () => {
    await charge({ ref: 'order-6', amount: 1 });
    await charge({ ref: 'order-6', amount: 1 });
    expect(sandbox.ledger.effectsFor('payments', 'order-6')).toBe(2);
    await charge({ ref: 'order-7', amount: 1 }, 'key-7');
    sandbox.reset('payments');
    const after = await charge({ ref: 'order-7', amount: 1 }, 'key-7');
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(sandbox.ledger.summary('payments')).toMatchObject({ arrivals: 1, effects: 1 });
  });

  it('refuses a body that is not a JSON object', async () => {
    const response = await fetch(`${base}/payments/charges`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1,2]' });
    expect(response.status).toBe(400);
    expect(sandbox.ledger.summary('payments')).toMatchObject({ arrivals: 1, effects: 0 });
  });
});
