/**
 * Expired keys: a claim is forgotten once its time to live has passed, and a small record
 * of it is kept (who did the work, when, and when the key expired), so a preview and the
 * timeline can say honestly that a replay acts again — and since when it would.
 */
import { batchRows, perDialect } from './batch.ts';
import type { Sql } from './db.ts';
import { EXPIRED_KEY_COLUMNS, toExpiredKey, type ExpiredKeyRow } from './rows.ts';
import type { ClaimRef } from './types.ts';

export type { ExpiredKeyRow } from './rows.ts';

/**
 * The oldest expired claims, at most `limit`. Only a claim whose outcome is known ages out
 * (`AGES_OUT`): one in progress has a holder that may still be acting, and an uncertain one
 * waits for a person, since only their "do it" may let its key act again (DESIGN §5.6).
 * Only work that was done leaves a record; a refused try did nothing worth remembering.
 */
const AGES_OUT = `status IN ('succeeded', 'failed')`;
const PICK_EXPIRED = `SELECT scope, key FROM claims WHERE expires_at < ? AND ${AGES_OUT} ORDER BY expires_at LIMIT ?`;

const RECORD_EXPIRED = perDialect((dialect) =>
  `INSERT INTO expired_keys (${EXPIRED_KEY_COLUMNS})
     SELECT scope, key, updated_at, owner_run_id, owner_node_id, expires_at FROM claims
     WHERE (scope, key) IN (SELECT scope, key FROM ${batchRows(dialect, [['scope', 'text'], ['key', 'text']])})
       AND expires_at < ? AND status = 'succeeded'
   ON CONFLICT (scope, key) DO UPDATE SET done_at = excluded.done_at, run_id = excluded.run_id, step = excluded.step, expired_at = excluded.expired_at`);

const FORGET_EXPIRED = perDialect((dialect) =>
  `DELETE FROM claims
     WHERE (scope, key) IN (SELECT scope, key FROM ${batchRows(dialect, [['scope', 'text'], ['key', 'text']])})
       AND expires_at < ? AND ${AGES_OUT}`);

/**
 * Forgets up to `limit` claims past their time to live, keeping a record of each; returns
 * how many were forgotten. Call inside one transaction. The expiry is checked again as each
 * row is written and deleted, so a key claimed afresh meanwhile is left alone.
 */
export async function sweepExpiredClaims(sql: Sql, now: number, limit: number): Promise<number> {
  const picked = await sql.all<{ scope: string; key: string }>(PICK_EXPIRED, [now, limit]);
  if (picked.length === 0) return 0;
  const batch = picked.map((row) => [row.scope, row.key]);
  await sql.run(RECORD_EXPIRED[sql.dialect], [batch, now]);
  return sql.run(FORGET_EXPIRED[sql.dialect], [batch, now]);
}

const FIND_EXPIRED = perDialect((dialect) => {
  const refs = `(SELECT scope, key FROM ${batchRows(dialect, [['scope', 'text'], ['key', 'text']])})`;
  return `SELECT ${EXPIRED_KEY_COLUMNS} FROM expired_keys
     WHERE (scope, key) IN ${refs}
       AND NOT EXISTS (SELECT 1 FROM claims WHERE claims.scope = expired_keys.scope AND claims.key = expired_keys.key AND (claims.expires_at >= ? OR NOT claims.${AGES_OUT}))
   UNION ALL
   SELECT scope, key, updated_at AS done_at, owner_run_id AS run_id, owner_node_id AS step, expires_at AS expired_at FROM claims
     WHERE (scope, key) IN ${refs} AND expires_at < ? AND status = 'succeeded'`;
});

/**
 * Which of `refs` had their work done under a key that has since expired, so the next
 * claim of it is won afresh and acts again: a swept key's record (when no live claim has
 * taken the key since), or a claim past its time to live the sweeper has not reached yet.
 * One statement whatever the number of refs; one answer per key, the latest expiry.
 */
export async function findExpiredKeys(sql: Sql, refs: readonly ClaimRef[], now: number): Promise<ExpiredKeyRow[]> {
  if (refs.length === 0) return [];
  const batch = refs.map((ref) => [ref.scope, ref.key]);
  const rows = (await sql.all(FIND_EXPIRED[sql.dialect], [batch, now, batch, now])).map(toExpiredKey);
  const latest = new Map<string, ExpiredKeyRow>();
  for (const row of rows) {
    const id = expiredKeyId(row);
    const seen = latest.get(id);
    if (!seen || seen.expiredAt < row.expiredAt) latest.set(id, row);
  }
  return [...latest.values()];
}

/** A map key for a (scope, key) pair; NUL cannot occur in either. */
export function expiredKeyId(ref: ClaimRef): string {
  return `${ref.scope}\u0000${ref.key}`;
}

export async function readExpiredKey(sql: Sql, scope: string, key: string): Promise<ExpiredKeyRow | undefined> {
  const row = await sql.get(`SELECT ${EXPIRED_KEY_COLUMNS} FROM expired_keys WHERE scope = ? AND key = ?`, [scope, key]);
  return row ? toExpiredKey(row) : undefined;
}

/** Retention: forgets up to `limit` expired-key records that expired before `before`. */
export async function pruneExpiredKeyRecords(sql: Sql, before: number, limit: number): Promise<number> {
  return sql.run(
    `DELETE FROM expired_keys WHERE (scope, key) IN (SELECT scope, key FROM expired_keys WHERE expired_at < ? ORDER BY expired_at LIMIT ?)`,
    [before, limit],
  );
}
