/**
 * Secrets: one encrypted row per name. Values arrive here already encrypted; this file
 * never sees a plaintext. Its statements skip the database's masker (`db.unmasked`):
 * the row holds ciphertext, which masking could only damage.
 *
 * Invariant: `updated_at` only moves forward across the whole table (each write stores
 * at least the previous maximum + 1), so `(MAX(updated_at), COUNT(*))` changes on every
 * write and serves other processes' caches as a change check. One sequence slips past it:
 * deleting the newest row and, within the same check interval, writing another whose
 * time lands exactly on the deleted one's, which needs a clock behind the stored times.
 */
import type { Db } from './db.ts';
import { SECRET_COLUMNS, toSecret } from './rows.ts';
import type { EncryptedValue, SecretRow } from './types.ts';

/** The secrets table is reached only through the unmasked statements. */
type SecretsDb = Pick<Db, 'unmasked'>;

export interface SecretsStamp {
  maxUpdatedAt: number | null;
  count: number;
}

/**
 * Stores the secret; returns the stored `updated_at`, or null when `onlyIfNew` is set and
 * the name is already taken. The conflict target makes "add, never overwrite" one
 * statement, so two people adding the same name at once cannot both succeed.
 */
export async function upsertSecret(db: SecretsDb, name: string, value: EncryptedValue, now: number, options: { onlyIfNew?: boolean } = {}): Promise<number | null> {
  const onConflict = options.onlyIfNew
    ? 'ON CONFLICT (name) DO NOTHING'
    : 'ON CONFLICT (name) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv, tag = excluded.tag, updated_at = excluded.updated_at';
  // INSERT … SELECT needs a WHERE for SQLite to parse the ON CONFLICT clause after it.
  const row = await db.unmasked.get<{ updated_at: number }>(
    `INSERT INTO secrets (name, ciphertext, iv, tag, updated_at)
     SELECT ?, ?, ?, ?, CASE WHEN COALESCE(MAX(updated_at), 0) < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE MAX(updated_at) + 1 END
     FROM secrets WHERE 1 = 1
     ${onConflict}
     RETURNING updated_at`,
    [name, value.ciphertext, value.iv, value.tag, now, now],
  );
  return row ? Number(row.updated_at) : null;
}

export async function deleteSecret(db: SecretsDb, name: string): Promise<boolean> {
  return (await db.unmasked.run('DELETE FROM secrets WHERE name = ?', [name])) > 0;
}

export async function listSecretNames(db: SecretsDb): Promise<{ name: string; updatedAt: number }[]> {
  const rows = await db.unmasked.all<{ name: string; updated_at: number }>('SELECT name, updated_at FROM secrets ORDER BY name');
  return rows.map((row) => ({ name: row.name, updatedAt: Number(row.updated_at) }));
}

export async function loadSecretRows(db: SecretsDb): Promise<SecretRow[]> {
  const rows = await db.unmasked.all(`SELECT ${SECRET_COLUMNS} FROM secrets ORDER BY name`);
  return rows.map(toSecret);
}

/** The cheap change check: one aggregate over a small table, no values read. */
export async function secretsStamp(db: SecretsDb): Promise<SecretsStamp> {
  const row = await db.unmasked.get<{ max_updated_at: number | null; count: number }>(
    'SELECT MAX(updated_at) AS max_updated_at, COUNT(*) AS count FROM secrets',
  );
  return {
    maxUpdatedAt: row?.max_updated_at == null ? null : Number(row.max_updated_at),
    count: Number(row?.count ?? 0),
  };
}
