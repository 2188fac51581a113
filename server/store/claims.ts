/**
 * Claims: the unique (scope, key) row that decides who may act. Every decision is one
 * statement — insert-or-nothing to win, a fence-guarded update to take over or settle —
 * so two workers can never both believe they won.
 */
import { batchRows, perDialect } from './batch.ts';
import type { Sql } from './db.ts';
import { CLAIM_COLUMNS, toClaim, toJson } from './rows.ts';
import type { ClaimRef, ClaimRow, ClaimStatus } from './types.ts';

export interface ClaimAttempt {
  scope: string;
  key: string;
  fingerprint: string;
  request: unknown;
  runId: string;
  nodeId: string;
  leaseUntil: number;
  expiresAt: number;
  now: number;
}

/**
 * Inserts the claim; returns its fence when this call won, undefined when someone else
 * holds the key. A claim past its keep time whose outcome is known (succeeded, failed)
 * counts as absent and is won afresh; one in progress or uncertain never ages out: the
 * caller reads it and follows its holder, takes over a lapsed lease, or asks a person.
 */
export async function tryClaim(sql: Sql, claim: ClaimAttempt): Promise<number | undefined> {
  return (await tryClaimNotingExpiry(sql, claim))?.fence;
}

/**
 * What winning a claim found: its fence, and when the key had expired before. `fence` 1
 * with `sweptExpiry` means the key was swept after its time to live and its expired-key
 * record is there to read; a fence above 1 means this claim replaced one past its time to
 * live that the sweeper had not reached yet.
 */
export interface WonClaim {
  fence: number;
  sweptExpiry: number | null;
}

/** tryClaim, also saying whether the key had expired: one statement, so the hot path pays one index lookup more. */
export async function tryClaimNotingExpiry(sql: Sql, claim: ClaimAttempt): Promise<WonClaim | undefined> {
  const row = await sql.get<{ fence: number; swept_expiry: number | null }>(
    `INSERT INTO claims (scope, key, status, fingerprint, request, owner_run_id, owner_node_id, fence, lease_until, expires_at, created_at, updated_at)
     VALUES (?, ?, 'in_progress', ?, ?, ?, ?, 1, ?, ?, ?, ?)
     ON CONFLICT (scope, key) DO UPDATE SET status = 'in_progress', fingerprint = excluded.fingerprint, request = excluded.request,
       owner_run_id = excluded.owner_run_id, owner_node_id = excluded.owner_node_id, fence = claims.fence + 1,
       lease_until = excluded.lease_until, output = NULL, error = NULL, expires_at = excluded.expires_at,
       created_at = excluded.created_at, updated_at = excluded.updated_at
     WHERE claims.expires_at < ? AND claims.status IN ('succeeded', 'failed')
     RETURNING fence, (SELECT expired_at FROM expired_keys WHERE expired_keys.scope = claims.scope AND expired_keys.key = claims.key) AS swept_expiry`,
    [claim.scope, claim.key, claim.fingerprint, toJson(claim.request), claim.runId, claim.nodeId, claim.leaseUntil, claim.expiresAt, claim.now, claim.now, claim.now],
  );
  return row ? { fence: Number(row.fence), sweptExpiry: row.swept_expiry === null ? null : Number(row.swept_expiry) } : undefined;
}

// Written out once, as every statement on a hot path is (db.ts, `prepare`).
const READ_CLAIM = `SELECT ${CLAIM_COLUMNS} FROM claims WHERE scope = ? AND key = ?`;

export async function readClaim(sql: Sql, scope: string, key: string): Promise<ClaimRow | undefined> {
  const row = await sql.get(READ_CLAIM, [scope, key]);
  return row ? toClaim(row) : undefined;
}

const READ_CLAIMS = perDialect((dialect) =>
  `SELECT ${CLAIM_COLUMNS} FROM claims WHERE (scope, key) IN (SELECT scope, key FROM ${batchRows(dialect, [['scope', 'text'], ['key', 'text']])})`);

/** The claims that exist among `refs`, in one statement whatever their number (no order). */
export async function readClaims(sql: Sql, refs: readonly ClaimRef[]): Promise<ClaimRow[]> {
  if (refs.length === 0) return [];
  const rows = await sql.all(READ_CLAIMS[sql.dialect], [refs.map((ref) => [ref.scope, ref.key])]);
  return rows.map(toClaim);
}

/**
 * Takes over a claim whose holder died (in_progress, lease lapsed) or that failed.
 * Returns the new fence, or undefined when someone else moved first.
 */
export async function takeOverClaim(
  sql: Sql,
  claim: { scope: string; key: string; fence: number; status: ClaimStatus },
  owner: { runId: string; nodeId: string; fingerprint: string; request: unknown; leaseUntil: number; now: number },
): Promise<number | undefined> {
  const row = await sql.get<{ fence: number }>(
    `UPDATE claims SET fence = fence + 1, status = 'in_progress', owner_run_id = ?, owner_node_id = ?, fingerprint = ?, request = ?,
       lease_until = ?, error = NULL, updated_at = ?
     WHERE scope = ? AND key = ? AND fence = ? AND status = ? AND (status <> 'in_progress' OR lease_until < ?)
     RETURNING fence`,
    [owner.runId, owner.nodeId, owner.fingerprint, toJson(owner.request), owner.leaseUntil, owner.now, claim.scope, claim.key, claim.fence, claim.status, owner.now],
  );
  return row ? Number(row.fence) : undefined;
}

const SETTLE_CLAIM = `UPDATE claims SET status = ?, output = ?, error = ?, updated_at = ? WHERE scope = ? AND key = ? AND fence = ?`;
const SETTLE_CLAIM_OF_HELD_RUN = `${SETTLE_CLAIM} AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND lease_fence = ? AND status = 'running')`;

/**
 * Settles the claim when `fence` is still current; false means a newer holder exists.
 * With `run`, the same statement also requires that run's lease fence to be current, so
 * one statement proves both the claim and the run are still this worker's.
 */
export async function settleClaim(
  sql: Sql,
  claim: { scope: string; key: string; fence: number },
  outcome: { status: ClaimStatus; output?: unknown; error?: string | null; now: number },
  run?: { id: string; leaseFence: number },
): Promise<boolean> {
  const params: unknown[] = [outcome.status, toJson(outcome.output), outcome.error ?? null, outcome.now, claim.scope, claim.key, claim.fence];
  if (run) params.push(run.id, run.leaseFence);
  const changed = await sql.run(run ? SETTLE_CLAIM_OF_HELD_RUN : SETTLE_CLAIM, params);
  return changed === 1;
}

export async function extendClaimLease(sql: Sql, claim: { scope: string; key: string; fence: number }, until: number): Promise<boolean> {
  const changed = await sql.run(
    `UPDATE claims SET lease_until = ? WHERE scope = ? AND key = ? AND fence = ? AND status = 'in_progress'`,
    [until, claim.scope, claim.key, claim.fence],
  );
  return changed === 1;
}

/** "It happened" (succeeded) or "do it now" (failed, so the next claimant acts); false when it is not uncertain. */
export async function resolveUncertainClaim(
  sql: Sql,
  claim: { scope: string; key: string },
  to: 'succeeded' | 'failed',
  output: unknown,
  now: number,
): Promise<boolean> {
  const changed = await sql.run(
    `UPDATE claims SET status = ?, output = ?, fence = fence + 1, updated_at = ? WHERE scope = ? AND key = ? AND status = 'uncertain'`,
    [to, toJson(output), now, claim.scope, claim.key],
  );
  return changed === 1;
}

/**
 * Records a Skip on an uncertain claim. The claim stays uncertain: skipping says nothing
 * about whether the action happened, so no later run may act on the key without a person.
 */
export async function recordSkipOnUncertainClaim(sql: Sql, claim: { scope: string; key: string }, record: unknown, now: number): Promise<boolean> {
  const changed = await sql.run(
    `UPDATE claims SET output = ?, updated_at = ? WHERE scope = ? AND key = ? AND status = 'uncertain'`,
    [toJson(record), now, claim.scope, claim.key],
  );
  return changed === 1;
}
