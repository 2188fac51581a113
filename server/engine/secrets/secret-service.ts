/**
 * Named secrets for `{{ secrets.NAME }}` (DESIGN.md §10). Values are encrypted before they
 * reach the database and leave this service only through `values()`, which the worker
 * calls for every run; `list()` gives names and times, never values.
 *
 * Cache lifecycle of `values()`:
 * - empty: the first call reads every row and decrypts it;
 * - fresh (checked less than a second ago): returned as is, no query;
 * - due: one aggregate query compares `(MAX(updated_at), COUNT(*))` with what the cache
 *   was built from; equal → fresh again, different (another process wrote) → reload;
 * - a `set`/`delete` in this process empties it at once, and a reload that was already
 *   under way when the write happened is not kept.
 *
 * The database's masker learns every value this service loads or sets, before any step
 * can write it: the worker calls `values()` before each run, the tRPC seam before each
 * answer, and the process once at start.
 */
import type { Db } from '../database.ts';
import { deleteSecret, listSecretNames, loadSecretRows, secretsStamp, upsertSecret, type SecretsStamp } from '../../store/secrets.ts';
import { UserError } from '../errors.ts';
import { systemClock, type Clock } from '../types.ts';
import { decrypt, encrypt } from './crypto.ts';
import { longEnoughToMask, MIN_SECRET_LENGTH } from './masker.ts';

export interface SecretSummary {
  name: string;
  updatedAt: number;
}

export interface SecretService {
  /** Names and last change times, sorted by name; never values. */
  list(): Promise<SecretSummary[]>;
  /** Stores the value; with `onlyIfNew`, stores nothing and answers false if the name is taken. */
  set(name: string, value: string, options?: { onlyIfNew?: boolean }): Promise<boolean>;
  /** False when no secret had that name. */
  delete(name: string): Promise<boolean>;
  /** Every secret decrypted, by name (a frozen object shared between callers). */
  values(): Promise<Record<string, string>>;
}

const NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
export const MAX_SECRET_BYTES = 64 * 1024;
/** How often `values()` asks the database whether another process changed a secret (default: 1 s). */
export const SECRET_CHECK_INTERVAL_MS = 1000;

export function validateSecretName(name: string): void {
  if (!NAME.test(name)) {
    const shown = name.length > 70 ? `${name.slice(0, 70)}…` : name;
    throw new UserError(
      `"${shown}" cannot be used as a secret name. A name starts with a capital letter and uses only capital letters, digits and underscores, at most 64 characters (for example API_TOKEN).`,
    );
  }
}

function validateSecretValue(name: string, value: string): void {
  if (value.length === 0) throw new UserError(`The value of secret ${name} is empty; give it a value, or delete the secret.`);
  if (!longEnoughToMask(value)) {
    throw new UserError(
      `The value of secret ${name} is too short: a secret needs at least ${MIN_SECRET_LENGTH} characters (spaces at either end do not count), so that it can be kept out of run details and logs without hiding ordinary words.`,
    );
  }
  if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES) {
    throw new UserError(`The value of secret ${name} is larger than 64 KiB; secrets are meant for passwords, tokens and keys.`);
  }
}

export function secretService(options: { db: Db; key: Buffer; clock?: Pick<Clock, 'now'> }): SecretService {
  const { db, key } = options;
  const clock = options.clock ?? systemClock;
  let cache: { values: Record<string, string>; stamp: SecretsStamp; checkedAt: number } | null = null;
  let loading: Promise<Record<string, string>> | null = null;
  // Bumped by every local write, so a reload that read the old rows is not cached.
  let generation = 0;

  const invalidate = () => {
    generation += 1;
    cache = null;
    loading = null;
  };

  async function reload(): Promise<Record<string, string>> {
    const started = generation;
    const stamp = await secretsStamp(db);
    if (cache && cache.stamp.maxUpdatedAt === stamp.maxUpdatedAt && cache.stamp.count === stamp.count) {
      cache.checkedAt = clock.now();
      return cache.values;
    }
    // Rows are read after the stamp: a write in between makes the stamp look old, which
    // only costs one more reload, never a stale cache.
    const rows = await loadSecretRows(db);
    const values: Record<string, string> = Object.freeze(Object.fromEntries(rows.map((row) => [row.name, decrypt(key, row)])));
    db.masker.remember(Object.values(values));
    if (generation === started) cache = { values, stamp, checkedAt: clock.now() };
    return values;
  }

  return {
    list: () => listSecretNames(db),

    async set(name, value, options = {}) {
      validateSecretName(name);
      validateSecretValue(name, value);
      // Known to the masker before anything can use it.
      db.masker.remember([value]);
      try {
        return (await upsertSecret(db, name, encrypt(key, value), clock.now(), options)) !== null;
      } finally {
        invalidate();
      }
    },

    async delete(name) {
      validateSecretName(name);
      try {
        return await deleteSecret(db, name);
      } finally {
        invalidate();
      }
    },

    async values() {
      if (cache && clock.now() - cache.checkedAt < SECRET_CHECK_INTERVAL_MS) return cache.values;
      if (!loading) {
        const current = reload().finally(() => {
          if (loading === current) loading = null;
        });
        loading = current;
      }
      return loading;
    },
  };
}
