/**
 * What the built-in stand-ins received for test runs. A stand-in that honours keys
 * records with insert-or-nothing on (receiver, key), so a repeated key — from a retry, a
 * recovered step or another process — is answered from the first record, exactly as a
 * receiver like Stripe does; the others record every request they get.
 */
import { isOneOf } from './batch.ts';
import type { Db, Sql } from './db.ts';
import { STAND_IN_EFFECT_COLUMNS as COLUMNS, toJson, toStandInEffect as toEffect } from './rows.ts';
import type { StandInEffect } from './types.ts';

export type { StandInEffect } from './types.ts';

/**
 * Records an effect. With a key, a repeat is not recorded: the first effect under the key
 * comes back with `repeated: true`.
 */
export async function recordStandInEffect(sql: Sql, effect: StandInEffect): Promise<{ effect: StandInEffect; repeated: boolean }> {
  const inserted = await sql.get(
    `INSERT INTO stand_in_effects (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (receiver, idempotency_key) DO NOTHING RETURNING id`,
    [effect.id, effect.receiver, effect.idempotencyKey, effect.runId, effect.nodeId, toJson(effect.request), toJson(effect.response), effect.createdAt],
  );
  if (inserted) return { effect, repeated: false };
  const first = await sql.get(`SELECT ${COLUMNS} FROM stand_in_effects WHERE receiver = ? AND idempotency_key = ?`, [effect.receiver, effect.idempotencyKey]);
  return { effect: toEffect(first!), repeated: true };
}

/** The effects recorded for these runs, oldest first. */
export async function standInEffectsOfRuns(db: Db, runIds: readonly string[]): Promise<StandInEffect[]> {
  if (runIds.length === 0) return [];
  const rows = await db.all(
    `SELECT ${COLUMNS} FROM stand_in_effects WHERE ${isOneOf(db.dialect, 'run_id')} ORDER BY created_at, id`,
    [[...runIds]],
  );
  return rows.map(toEffect);
}
