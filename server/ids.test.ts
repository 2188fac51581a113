import { afterEach, describe, expect, it, vi } from 'vitest';
import { newHookId, newId } from './ids.ts';

describe('ids', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('are readable, prefixed and sort by creation time', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_767_225_600_000);
    const first = newId('run');
    // One millisecond later is enough: the time comes first, to the millisecond.
    vi.setSystemTime(1_767_225_600_001);
    const second = newId('run');
    expect(first).toMatch(/^run_[0-9a-z]{16}$/);
    expect(first < second).toBe(true);
  });

  it('do not repeat when made in the same millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('inb')));
    expect(ids.size).toBe(10_000);
  });

  it('for webhooks stay fully random', () => {
    expect(newHookId()).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(newHookId()).not.toBe(newHookId());
  });
});
