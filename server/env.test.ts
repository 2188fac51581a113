import { describe, expect, it } from 'vitest';
import { readEnv } from './env.ts';

describe('settings: key time to live and retention', () => {
  it('keeps keys 30 days and runs forever unless told otherwise', () => {
    const env = readEnv({});
    expect(env.ONCEFLOW_KEY_TTL).toBe('30d');
    expect(env.ONCEFLOW_RETENTION).toBeUndefined();
    expect(readEnv({ ONCEFLOW_RETENTION: 'off' }).ONCEFLOW_RETENTION).toBeUndefined();
    expect(readEnv({ ONCEFLOW_RETENTION: ' 180d ', ONCEFLOW_KEY_TTL: '90d' })).toMatchObject({ ONCEFLOW_RETENTION: '180d', ONCEFLOW_KEY_TTL: '90d' });
  });

  it('refuses a length of time it cannot read, in plain words', () => {
    expect(() => readEnv({ ONCEFLOW_KEY_TTL: '30 days' })).toThrow('The setting ONCEFLOW_KEY_TTL is not valid: write a number followed by ms, s, m, h or d, like 90s, 15m, 2h or 3d.');
    expect(() => readEnv({ ONCEFLOW_KEY_TTL: '0d' })).toThrow('ONCEFLOW_KEY_TTL is not valid');
    expect(() => readEnv({ ONCEFLOW_RETENTION: 'forever' })).toThrow('The setting ONCEFLOW_RETENTION is not valid: write a number followed by ms, s, m, h or d, like 90s, 15m, 2h or 3d, or off.');
  });
});

describe('settings: the metrics token', () => {
  it('is off when unset or blank, and refused when too short to be a secret', () => {
    expect(readEnv({}).ONCEFLOW_METRICS_TOKEN).toBeUndefined();
    expect(readEnv({ ONCEFLOW_METRICS_TOKEN: '  ' }).ONCEFLOW_METRICS_TOKEN).toBeUndefined();
    expect(readEnv({ ONCEFLOW_METRICS_TOKEN: ' 0123456789abcdef0123 ' }).ONCEFLOW_METRICS_TOKEN).toBe('0123456789abcdef0123');
    expect(() => readEnv({ ONCEFLOW_METRICS_TOKEN: 'short' })).toThrow('The setting ONCEFLOW_METRICS_TOKEN is not valid: use at least 16 characters');
  });
});
