/**
 * Webhook signature checks (DESIGN.md §6), pure: raw body, headers and the time in,
 * a verdict out. The HTTP adapter answers 401 with `reason` when `ok` is false, so every
 * reason is a sentence the person configuring the sender can act on.
 *
 * Schemes:
 * - standard-webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` (a space
 *   separated list of `v1,<base64>`); signed content `${id}.${timestamp}.${body}` with
 *   the base64-decoded secret (`whsec_` prefix optional).
 * - stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`; signed content
 *   `${t}.${body}` with the secret as given.
 * - hmac-sha256: the hex HMAC-SHA256 of the raw body in one header (default
 *   `x-signature`), optionally written `sha256=<hex>` (GitHub); no timestamp, so no
 *   protection against replays beyond the event-id dedupe.
 *
 * Every scheme accepts several signatures at once so a sender can rotate its secret;
 * any one valid signature passes. HMACs are computed over the raw bytes, never over a
 * re-serialised body, and compared with timingSafeEqual.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureScheme = 'standard-webhooks' | 'stripe' | 'hmac-sha256';

export interface SignatureConfig {
  scheme: SignatureScheme;
  secret: string;
  /** Header holding the signature for `hmac-sha256` (default: `x-signature`). */
  header?: string;
}

export interface SignedRequest {
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

/** How far a sender's timestamp may be from ours, either way (default: 5 minutes). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export const DEFAULT_HMAC_HEADER = 'x-signature';

const NO_MATCH = 'The signature does not match: the secret or the body differs.';

/**
 * Checks the request's signature. `now` is milliseconds since the epoch (the engine's
 * clock), header timestamps are seconds.
 */
export function verifySignature(config: SignatureConfig, request: SignedRequest, now: number): SignatureVerdict {
  if (config.secret === '') return refuse('No signing secret is set for this webhook, so its signature cannot be checked.');
  switch (config.scheme) {
    case 'standard-webhooks':
      return verifyStandardWebhook(config.secret, request, now);
    case 'stripe':
      return verifyStripe(config.secret, request, now);
    case 'hmac-sha256':
      return verifyHmac(config.secret, config.header ?? DEFAULT_HMAC_HEADER, request);
    default:
      return refuse(`The signature scheme "${String(config.scheme)}" is not known; use standard-webhooks, stripe or hmac-sha256.`);
  }
}

// ---------------------------------------------------------------- Standard Webhooks

/** The `webhook-signature` header value for one secret (`v1,<base64>`). */
export function signStandardWebhook(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
  const key = standardWebhookKey(secret);
  if (!key) throw new Error(STANDARD_SECRET_INVALID);
  return `v1,${hmac(key, `${id}.${timestampSeconds}.`, body).toString('base64')}`;
}

const STANDARD_SECRET_INVALID =
  'The Standard Webhooks secret is not valid: it should be whsec_ followed by base64 text, as the sender shows it.';

function standardWebhookKey(secret: string): Buffer | undefined {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 ? key : undefined;
}

function verifyStandardWebhook(secret: string, request: SignedRequest, now: number): SignatureVerdict {
  const key = standardWebhookKey(secret);
  if (!key) return refuse(STANDARD_SECRET_INVALID);
  const id = header(request, 'webhook-id');
  const timestamp = header(request, 'webhook-timestamp');
  const signatures = header(request, 'webhook-signature', ' ');
  if (id === undefined) return refuse('The webhook-id header is missing.');
  if (timestamp === undefined) return refuse('The webhook-timestamp header is missing.');
  if (signatures === undefined) return refuse('The webhook-signature header is missing.');
  const seconds = parseTimestamp(timestamp);
  if (seconds === undefined) {
    return refuse(`The webhook-timestamp header "${clip(timestamp)}" is not a time in whole seconds since 1970.`);
  }
  const candidates: Buffer[] = [];
  for (const entry of signatures.split(/\s+/).filter(Boolean)) {
    const comma = entry.indexOf(',');
    if (comma <= 0) return refuse('The webhook-signature header is not in the expected form v1,<signature>.');
    // Other versions (v1a: asymmetric) are skipped, as the specification asks.
    if (entry.slice(0, comma) !== 'v1') continue;
    const encoded = entry.slice(comma + 1);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
      return refuse('The webhook-signature header is not in the expected form v1,<signature>.');
    }
    candidates.push(Buffer.from(encoded, 'base64'));
  }
  if (candidates.length === 0) return refuse('The webhook-signature header has no v1 signature.');
  // The timestamp is signed as sent, not as re-formatted from its number.
  const expected = hmac(key, `${id}.${timestamp}.`, request.rawBody);
  if (!anyMatches(expected, candidates)) return refuse(NO_MATCH);
  return checkAge(seconds, now);
}

// ---------------------------------------------------------------- Stripe

/** The `Stripe-Signature` header value for one secret (`t=<unix>,v1=<hex>`). */
export function signStripe(secret: string, timestampSeconds: number, body: string | Buffer): string {
  return `t=${timestampSeconds},v1=${hmac(Buffer.from(secret, 'utf8'), `${timestampSeconds}.`, body).toString('hex')}`;
}

const STRIPE_MALFORMED = 'The Stripe-Signature header is not in the expected form t=<time>,v1=<signature>.';

function verifyStripe(secret: string, request: SignedRequest, now: number): SignatureVerdict {
  const value = header(request, 'stripe-signature', ',');
  if (value === undefined) return refuse('The Stripe-Signature header is missing.');
  let timestamp: string | undefined;
  const candidates: Buffer[] = [];
  for (const part of value.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const equals = item.indexOf('=');
    if (equals <= 0) return refuse(STRIPE_MALFORMED);
    const name = item.slice(0, equals);
    const content = item.slice(equals + 1);
    if (name === 't') {
      if (timestamp !== undefined) return refuse(STRIPE_MALFORMED);
      timestamp = content;
    } else if (name === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(content)) return refuse(STRIPE_MALFORMED);
      candidates.push(Buffer.from(content, 'hex'));
    }
    // Other schemes (v0) are ignored, as Stripe advises, so nobody can downgrade the check.
  }
  if (timestamp === undefined) return refuse('The Stripe-Signature header has no timestamp (t=…).');
  const seconds = parseTimestamp(timestamp);
  if (seconds === undefined) return refuse(`The Stripe-Signature timestamp "${clip(timestamp)}" is not a time in whole seconds since 1970.`);
  if (candidates.length === 0) return refuse('The Stripe-Signature header has no v1 signature.');
  const expected = hmac(Buffer.from(secret, 'utf8'), `${timestamp}.`, request.rawBody);
  if (!anyMatches(expected, candidates)) return refuse(NO_MATCH);
  return checkAge(seconds, now);
}

// ---------------------------------------------------------------- plain HMAC-SHA256

/** The hex HMAC-SHA256 of the body; senders may also send it as `sha256=<hex>`. */
export function signHmac(secret: string, body: string | Buffer): string {
  return hmac(Buffer.from(secret, 'utf8'), '', body).toString('hex');
}

function verifyHmac(secret: string, headerName: string, request: SignedRequest): SignatureVerdict {
  const value = header(request, headerName, ',');
  if (value === undefined) return refuse(`The ${headerName} header is missing.`);
  const candidates: Buffer[] = [];
  // Several signatures (comma or space separated, or a repeated header) allow rotation.
  for (const entry of value.split(/[\s,]+/).filter(Boolean)) {
    const hex = entry.toLowerCase().startsWith('sha256=') ? entry.slice('sha256='.length) : entry;
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
      return refuse(`The ${headerName} header is not a SHA-256 signature: expected 64 hexadecimal characters, optionally after sha256=.`);
    }
    candidates.push(Buffer.from(hex, 'hex'));
  }
  if (candidates.length === 0) return refuse(`The ${headerName} header is empty.`);
  const expected = hmac(Buffer.from(secret, 'utf8'), '', request.rawBody);
  return anyMatches(expected, candidates) ? { ok: true } : refuse(NO_MATCH);
}

// ---------------------------------------------------------------- shared

function refuse(reason: string): SignatureVerdict {
  return { ok: false, reason };
}

function hmac(key: Buffer, prefix: string, body: string | Buffer): Buffer {
  return createHmac('sha256', key).update(prefix, 'utf8').update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body).digest();
}

/** Compares against every candidate, without stopping early, in constant time each. */
function anyMatches(expected: Buffer, candidates: readonly Buffer[]): boolean {
  let matched = false;
  for (const candidate of candidates) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched;
}

/**
 * Header values by case-insensitive name. A repeated header arrives as an array and is
 * joined with the scheme's list separator; an empty value counts as missing.
 */
function header(request: SignedRequest, name: string, separator = ','): string | undefined {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(request.headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    values.push(...(Array.isArray(value) ? value : [value]));
  }
  const joined = values.map((value) => value.trim()).filter(Boolean).join(separator);
  return joined === '' ? undefined : joined;
}

function parseTimestamp(text: string): number | undefined {
  return /^\d{1,12}$/.test(text) ? Number(text) : undefined;
}

function checkAge(timestampSeconds: number, now: number): SignatureVerdict {
  const age = Math.floor(now / 1000) - timestampSeconds;
  const limit = `${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes`;
  if (age > TIMESTAMP_TOLERANCE_SECONDS) {
    return refuse(`The timestamp is ${duration(age)} old; deliveries older than ${limit} are refused.`);
  }
  if (-age > TIMESTAMP_TOLERANCE_SECONDS) {
    return refuse(
      `The timestamp is ${duration(-age)} in the future; deliveries more than ${limit} ahead are refused. Check the sender's clock.`,
    );
  }
  return { ok: true };
}

/** Rounded up, so a delivery just past the limit never reads as exactly the limit. */
function duration(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return `${minutes} minutes`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hours`;
  return `${Math.floor(hours / 24)} days`;
}

/** Echoes a header back in a reason without letting a huge value flood the log. */
function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
