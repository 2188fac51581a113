import { describe, expect, it } from 'vitest';
import { Ledger, SandboxSettings } from './ledger.ts';

describe('sandbox ledger', () => {
  it('counts arrivals and effects per key, or per reference when no key was sent', () => {
    let now = 1_000;
    const ledger = new Ledger(() => now);
    ledger.record('payments', { kind: 'charge', key: 'k1', reference: 'order-1', outcome: 'created', objectId: 'ch_1' });
    now = 2_000;
    ledger.record('payments', { kind: 'charge', key: 'k1', reference: 'order-1', outcome: 'replayed', objectId: 'ch_1' });
    ledger.record('crm', { kind: 'contact', reference: 'c-9', outcome: 'created' });
    ledger.record('crm', { kind: 'contact', reference: 'c-9', outcome: 'created_unanswered' });
    ledger.record('crm', { kind: 'contact', outcome: 'failed' });

    expect(ledger.summary('payments')).toEqual({
      receiver: 'payments', arrivals: 2, effects: 1, duplicated: 0,
      references: [{ reference: 'k1', arrivals: 2, effects: 1 }],
    });
    expect(ledger.summary('crm')).toMatchObject({ arrivals: 3, effects: 2, duplicated: 1 });
    expect(ledger.effectsFor('crm', 'c-9')).toBe(2);
    expect(ledger.effectsFor('crm', '(none)')).toBe(0);
    expect(ledger.entries().map((entry) => [entry.seq, entry.receiver, entry.at])).toEqual([
      [1, 'payments', 1_000], [2, 'payments', 2_000], [3, 'crm', 2_000], [4, 'crm', 2_000], [5, 'crm', 2_000],
    ]);
    expect(ledger.effects('payments')).toHaveLength(1);
  });

  it('resets one receiver or all of them', () => {
    const ledger = new Ledger();
    ledger.record('chat', { kind: 'message', outcome: 'created' });
    ledger.record('email', { kind: 'email', key: 'k', outcome: 'created' });
    ledger.reset('chat');
    expect(ledger.summary('chat').arrivals).toBe(0);
    expect(ledger.summary('email').arrivals).toBe(1);
    ledger.reset();
    expect(ledger.entries()).toEqual([]);
  });
});

describe('sandbox settings', () => {
  it('keeps values in range and rolls failures at the chosen rate', () => {
    const rolls = [0.1, 0.9];
    const settings = new SandboxSettings(() => rolls.shift() ?? 0);
    expect(settings.configure('payments', { latencyMs: -5, failureRate: 0.5 })).toEqual({ latencyMs: 0, failureRate: 0.5, dropAnswer: false });
    expect(settings.configure('payments', { dropAnswer: true, latencyMs: 999_999 })).toEqual({ latencyMs: 60_000, failureRate: 0.5, dropAnswer: true });
    expect(settings.rollFailure('payments')).toBe(true);
    expect(settings.rollFailure('payments')).toBe(false);
    expect(settings.rollFailure('chat')).toBe(false);
    settings.reset();
    expect(settings.all().payments).toEqual({ latencyMs: 0, failureRate: 0, dropAnswer: false });
  });
});
