import { describe, expect, it } from 'vitest';
import { newHookId, newId } from './ids.ts';

describe('ids', () => {
  it('are readable, prefixed and sort by creation time', async () => {
    const first = newId('run');
    await new Promise((resolve) => setTimeout(resolve, 5));
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
