/**
 * The signature matrix for each scheme: valid, wrong secret, tampered body, stale and
 * future timestamps, rotation (two signatures, one valid), missing and malformed headers.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signHmac, signStandardWebhook, signStripe, verifySignature, type SignatureConfig, type SignatureVerdict } from './signatures.ts';

const NOW_MS = 1_750_000_000_000;
const NOW_S = NOW_MS / 1000;
const BODY = Buffer.from('{"id":"evt_1","amount":4200,"note":"café ☕"}');
const TAMPERED = Buffer.from('{"id":"evt_1","amount":1,"note":"café ☕"}');
const NO_MATCH = 'The signature does not match: the secret or the body differs.';

type Headers = Record<string, string | string[] | undefined>;

function check(config: SignatureConfig, headers: Headers, body = BODY): SignatureVerdict {
  return verifySignature(config, { rawBody: body, headers }, NOW_MS);
}

function refusal(verdict: SignatureVerdict): string {
  expect(verdict.ok).toBe(false);
  return verdict.ok ? '' : verdict.reason;
}

describe('Standard Webhooks', () => {
  const secret = `whsec_${Buffer.from('a sender secret of some length').toString('base64')}`;
  const other = `whsec_${Buffer.from('another secret entirely').toString('base64')}`;
  const config: SignatureConfig = { scheme: 'standard-webhooks', secret };
  const headers = (signature: string, timestamp = NOW_S, id = 'msg_1'): Headers => ({
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  });

  it('accepts a valid signature', () => {
    expect(check(config, headers(signStandardWebhook(secret, 'msg_1', NOW_S, BODY)))).toEqual({ ok: true });
  });

  it('signs exactly as the reference library does, and accepts what it signs', () => {
    const reference = new Webhook(secret).sign('msg_1', new Date(NOW_MS), BODY.toString('utf8'));
    expect(signStandardWebhook(secret, 'msg_1', NOW_S, BODY)).toBe(reference);
    expect(check(config, headers(reference))).toEqual({ ok: true });
  });

  it('accepts the secret without its whsec_ prefix', () => {
    const bare = { ...config, secret: secret.slice('whsec_'.length) };
    expect(check(bare, headers(signStandardWebhook(secret, 'msg_1', NOW_S, BODY)))).toEqual({ ok: true });
  });

  it('refuses a signature made with another secret', () => {
    expect(refusal(check(config, headers(signStandardWebhook(other, 'msg_1', NOW_S, BODY))))).toBe(NO_MATCH);
  });

  it('refuses a tampered body', () => {
    expect(refusal(check(config, headers(signStandardWebhook(secret, 'msg_1', NOW_S, BODY)), TAMPERED))).toBe(NO_MATCH);
  });

  it('refuses a signature moved to another message id', () => {
    const signature = signStandardWebhook(secret, 'msg_1', NOW_S, BODY);
    expect(refusal(check(config, headers(signature, NOW_S, 'msg_2')))).toBe(NO_MATCH);
  });

  it('refuses a timestamp 6 minutes old', () => {
    const then = NOW_S - 360;
    expect(refusal(check(config, headers(signStandardWebhook(secret, 'msg_1', then, BODY), then)))).toBe(
      'The timestamp is 6 minutes old; deliveries older than 5 minutes are refused.',
    );
  });

  it('refuses a timestamp 6 minutes in the future', () => {
    const then = NOW_S + 360;
    expect(refusal(check(config, headers(signStandardWebhook(secret, 'msg_1', then, BODY), then)))).toMatch(
      /^The timestamp is 6 minutes in the future; deliveries more than 5 minutes ahead are refused/,
    );
  });

  it('accepts a timestamp exactly 5 minutes off either way', () => {
    for (const then of [NOW_S - 300, NOW_S + 300]) {
      expect(check(config, headers(signStandardWebhook(secret, 'msg_1', then, BODY), then))).toEqual({ ok: true });
    }
  });

  it('accepts two signatures of which one is valid (rotation), in either order', () => {
    const good = signStandardWebhook(secret, 'msg_1', NOW_S, BODY);
    const old = signStandardWebhook(other, 'msg_1', NOW_S, BODY);
    expect(check(config, headers(`${old} ${good}`))).toEqual({ ok: true });
    expect(check(config, headers(`${good} ${old}`))).toEqual({ ok: true });
    expect(check(config, headers(`v1a,c29tZXRoaW5nIGVsc2U= ${good}`))).toEqual({ ok: true });
    expect(refusal(check(config, headers(`${old} ${old}`)))).toBe(NO_MATCH);
  });

  it('refuses missing headers, naming the one that is missing', () => {
    const full = headers(signStandardWebhook(secret, 'msg_1', NOW_S, BODY));
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      expect(refusal(check(config, { ...full, [name]: undefined }))).toBe(`The ${name} header is missing.`);
    }
    expect(refusal(check(config, { ...full, 'webhook-signature': '' }))).toBe('The webhook-signature header is missing.');
  });

  it('refuses malformed headers', () => {
    const good = signStandardWebhook(secret, 'msg_1', NOW_S, BODY);
    expect(refusal(check(config, headers('not-a-signature')))).toBe('The webhook-signature header is not in the expected form v1,<signature>.');
    expect(refusal(check(config, headers('v1,***')))).toBe('The webhook-signature header is not in the expected form v1,<signature>.');
    expect(refusal(check(config, headers('v2,c2lnbmF0dXJl')))).toBe('The webhook-signature header has no v1 signature.');
    expect(refusal(check(config, { ...headers(good), 'webhook-timestamp': 'yesterday' }))).toBe(
      'The webhook-timestamp header "yesterday" is not a time in whole seconds since 1970.',
    );
  });

  it('looks headers up regardless of case', () => {
    const signature = signStandardWebhook(secret, 'msg_1', NOW_S, BODY);
    expect(check(config, { 'Webhook-Id': 'msg_1', 'WEBHOOK-TIMESTAMP': String(NOW_S), 'Webhook-Signature': signature })).toEqual({ ok: true });
  });

  it('refuses a secret that is not base64, in plain words', () => {
    expect(refusal(check({ ...config, secret: 'whsec_not base64!' }, headers('v1,abc=')))).toMatch(/^The Standard Webhooks secret is not valid/);
  });
});

describe('Stripe', () => {
  const secret = 'whsec_stripe_test_secret';
  const config: SignatureConfig = { scheme: 'stripe', secret };
  const headers = (value: string | undefined): Headers => ({ 'stripe-signature': value });

  it('accepts a valid signature', () => {
    expect(check(config, headers(signStripe(secret, NOW_S, BODY)))).toEqual({ ok: true });
  });

  it('refuses a signature made with another secret', () => {
    expect(refusal(check(config, headers(signStripe('whsec_other', NOW_S, BODY))))).toBe(NO_MATCH);
  });

  it('refuses a tampered body', () => {
    expect(refusal(check(config, headers(signStripe(secret, NOW_S, BODY)), TAMPERED))).toBe(NO_MATCH);
  });

  it('refuses a timestamp 6 minutes old', () => {
    expect(refusal(check(config, headers(signStripe(secret, NOW_S - 360, BODY))))).toBe(
      'The timestamp is 6 minutes old; deliveries older than 5 minutes are refused.',
    );
  });

  it('refuses a timestamp 6 minutes in the future', () => {
    expect(refusal(check(config, headers(signStripe(secret, NOW_S + 360, BODY))))).toMatch(/^The timestamp is 6 minutes in the future/);
  });

  it('refuses a timestamp changed after signing', () => {
    const signature = signStripe(secret, NOW_S - 10, BODY).replace(`t=${NOW_S - 10}`, `t=${NOW_S}`);
    expect(refusal(check(config, headers(signature)))).toBe(NO_MATCH);
  });

  it('accepts two v1 signatures of which one is valid (rotation)', () => {
    const good = signStripe(secret, NOW_S, BODY).split(',')[1];
    const old = signStripe('whsec_old', NOW_S, BODY).split(',')[1];
    expect(check(config, headers(`t=${NOW_S},${old},${good}`))).toEqual({ ok: true });
    expect(check(config, headers(`t=${NOW_S}, ${good}, ${old}, v0=abc`))).toEqual({ ok: true });
    expect(refusal(check(config, headers(`t=${NOW_S},${old},${old}`)))).toBe(NO_MATCH);
  });

  it('refuses a missing header', () => {
    expect(refusal(check(config, {}))).toBe('The Stripe-Signature header is missing.');
  });

  it('refuses malformed headers', () => {
    const hex = 'a'.repeat(64);
    expect(refusal(check(config, headers('garbage')))).toBe('The Stripe-Signature header is not in the expected form t=<time>,v1=<signature>.');
    expect(refusal(check(config, headers(`v1=${hex}`)))).toBe('The Stripe-Signature header has no timestamp (t=…).');
    expect(refusal(check(config, headers(`t=${NOW_S}`)))).toBe('The Stripe-Signature header has no v1 signature.');
    expect(refusal(check(config, headers(`t=${NOW_S},v1=xyz`)))).toBe('The Stripe-Signature header is not in the expected form t=<time>,v1=<signature>.');
    expect(refusal(check(config, headers(`t=soon,v1=${hex}`)))).toBe('The Stripe-Signature timestamp "soon" is not a time in whole seconds since 1970.');
  });

  it('looks the header up regardless of case', () => {
    expect(check(config, { 'Stripe-Signature': signStripe(secret, NOW_S, BODY) })).toEqual({ ok: true });
  });
});

describe('HMAC-SHA256', () => {
  const secret = 'plain shared secret';
  const config: SignatureConfig = { scheme: 'hmac-sha256', secret };

  it('accepts a valid signature as bare hex, as sha256=<hex>, and in upper case', () => {
    const hex = signHmac(secret, BODY);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(check(config, { 'x-signature': hex })).toEqual({ ok: true });
    expect(check(config, { 'x-signature': `sha256=${hex}` })).toEqual({ ok: true });
    expect(check(config, { 'X-Signature': hex.toUpperCase() })).toEqual({ ok: true });
  });

  it('reads the named header (GitHub style)', () => {
    const github = { ...config, header: 'X-Hub-Signature-256' };
    expect(check(github, { 'x-hub-signature-256': `sha256=${signHmac(secret, BODY)}` })).toEqual({ ok: true });
    expect(refusal(check(github, { 'x-signature': signHmac(secret, BODY) }))).toBe('The X-Hub-Signature-256 header is missing.');
  });

  it('refuses a signature made with another secret', () => {
    expect(refusal(check(config, { 'x-signature': signHmac('other', BODY) }))).toBe(NO_MATCH);
  });

  it('refuses a tampered body', () => {
    expect(refusal(check(config, { 'x-signature': signHmac(secret, BODY) }, TAMPERED))).toBe(NO_MATCH);
  });

  it('has no timestamp, so the age of a delivery does not matter', () => {
    const hours = verifySignature(config, { rawBody: BODY, headers: { 'x-signature': signHmac(secret, BODY) } }, NOW_MS + 6 * 3600_000);
    expect(hours).toEqual({ ok: true });
  });

  it('accepts two signatures of which one is valid (rotation), listed or repeated', () => {
    const good = `sha256=${signHmac(secret, BODY)}`;
    const old = `sha256=${signHmac('old secret', BODY)}`;
    expect(check(config, { 'x-signature': `${old}, ${good}` })).toEqual({ ok: true });
    expect(check(config, { 'x-signature': `${good} ${old}` })).toEqual({ ok: true });
    expect(check(config, { 'x-signature': [old, good] })).toEqual({ ok: true });
    expect(refusal(check(config, { 'x-signature': [old, old] }))).toBe(NO_MATCH);
  });

  it('refuses a missing header', () => {
    expect(refusal(check(config, {}))).toBe('The x-signature header is missing.');
    expect(refusal(check(config, { 'x-signature': '   ' }))).toBe('The x-signature header is missing.');
  });

  it('refuses a malformed header', () => {
    for (const value of ['sha1=abcdef', 'sha256=', 'zz'.repeat(32), signHmac(secret, BODY).slice(0, 63)]) {
      expect(refusal(check(config, { 'x-signature': value }))).toBe(
        'The x-signature header is not a SHA-256 signature: expected 64 hexadecimal characters, optionally after sha256=.',
      );
    }
  });
});

describe('any scheme', () => {
  it('refuses when no secret is configured', () => {
    expect(refusal(check({ scheme: 'hmac-sha256', secret: '' }, { 'x-signature': signHmac('', BODY) }))).toMatch(/No signing secret is set/);
  });
});
