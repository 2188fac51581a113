import { describe, expect, it } from 'vitest';
import { keepingLine } from './status.ts';

describe('onceflow status: what is kept', () => {
  it('names the key time to live, the retention and the oldest kept run', () => {
    expect(keepingLine({ keyTtl: '30d', retention: '180d', oldestKeptRun: { seq: 12, createdAt: Date.UTC(2026, 5, 3, 10) } }))
      .toBe('Keys kept 30d after their work; runs kept 180d; oldest kept run #12, 2026-06-03');
    expect(keepingLine({ keyTtl: '7d', retention: null, oldestKeptRun: null })).toBe('Keys kept 7d after their work; runs kept forever (no retention set); no runs yet');
  });
});
