/**
 * Who may use the app. Bound to a loopback address, nobody else can reach it, so no login
 * is needed. Bound to anything else, an admin password is required: the web app and /trpc
 * then need a session (an httpOnly, SameSite=Strict cookie) or a bearer token; webhooks and
 * /healthz stay open. Sessions are signed, not stored: a key derived from the password
 * signs them, so changing the password ends every session, and any number of processes
 * agree on them without sharing memory.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { UserError } from '../engine/errors.ts';

export const SESSION_COOKIE = 'onceflow_session';
const SESSION_MS = 12 * 3600_000;
const TOKEN_MS = 90 * 24 * 3600_000;

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/** Refuses, in one sentence, to expose the app without a password. */
export function checkExposure(host: string, password: string | undefined): void {
  if (!isLoopback(host) && !password) {
    throw new UserError(`Onceflow will not listen on ${host} without a login: set ONCEFLOW_ADMIN_PASSWORD (or keep HOST=127.0.0.1).`);
  }
}

const b64 = (value: Buffer | string) => Buffer.from(value).toString('base64url');

export function createAccess(password: string | undefined, clock: () => number = Date.now) {
  const required = Boolean(password);
  const signingKey = createHash('sha256').update(`onceflow-session:${password ?? ''}`).digest();
  const sign = (payload: string) => createHmac('sha256', signingKey).update(payload).digest();
  const failures = new Map<string, { count: number; last: number }>();

  function issue(kind: 'session' | 'token'): string {
    const payload = b64(JSON.stringify({ kind, exp: clock() + (kind === 'session' ? SESSION_MS : TOKEN_MS) }));
    return `${payload}.${b64(sign(payload))}`;
  }

  function verify(credential: string | undefined): boolean {
    if (!required) return true;
    if (!credential) return false;
    const [payload, signature] = credential.split('.');
    if (!payload || !signature) return false;
    const expected = sign(payload);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    try {
      const { exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp: number };
      return typeof exp === 'number' && exp > clock();
    } catch {
      return false;
    }
  }

  return {
    required,
    issue,
    verify,
    /**
     * Checks a password. Repeated failures from one address are slowed down: after three,
     * each attempt waits twice as long as the one before (up to 30 s) before it is answered.
     */
    async login(candidate: string, from: string): Promise<boolean> {
      const record = failures.get(from);
      if (record && record.count >= 3) {
        const wait = Math.min(30_000, 500 * 2 ** (record.count - 3));
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const a = createHash('sha256').update(candidate).digest();
      const b = createHash('sha256').update(password ?? '').digest();
      const ok = required && timingSafeEqual(a, b);
      if (ok) failures.delete(from);
      else {
        failures.set(from, { count: (record?.count ?? 0) + 1, last: clock() });
        if (failures.size > 10_000) failures.clear();
      }
      return ok;
    },
  };
}

export type Access = ReturnType<typeof createAccess>;
