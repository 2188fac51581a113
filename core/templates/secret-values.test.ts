import { describe, expect, it } from 'vitest';
import { collectSecretValues } from './render.ts';

describe('collectSecretValues', () => {
  it('lists non-empty secret values', () => {
    expect(collectSecretValues({ secrets: { A: 'one', B: '', C: 'three' } })).toEqual(['one', 'three']);
    expect(collectSecretValues({})).toEqual([]);
  });
});
