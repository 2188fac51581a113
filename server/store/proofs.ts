/** Proof reports: written when a proof starts, rewritten as it goes, kept afterwards. */
import { isOneOf } from './batch.ts';
import type { Db, Sql } from './db.ts';
import { PROOF_COLUMNS, toJson, toProof } from './rows.ts';
import type { ProofRow } from './types.ts';

export async function insertProof(sql: Sql, proof: ProofRow): Promise<void> {
  await sql.run(
    `INSERT INTO proofs (${PROOF_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [proof.id, proof.flowId, proof.versionId, proof.fingerprint, proof.status, toJson(proof.report), proof.createdAt, proof.finishedAt, proof.createdBy],
  );
}

export async function updateProof(sql: Sql, id: string, changes: Pick<ProofRow, 'status' | 'report' | 'finishedAt'>): Promise<void> {
  await sql.run(`UPDATE proofs SET status = ?, report = ?, finished_at = ? WHERE id = ?`, [changes.status, toJson(changes.report), changes.finishedAt, id]);
}

export async function getProof(sql: Sql, id: string): Promise<ProofRow | undefined> {
  const row = await sql.get(`SELECT ${PROOF_COLUMNS} FROM proofs WHERE id = ?`, [id]);
  return row ? toProof(row) : undefined;
}

/** A flow's proofs, newest first. */
export async function listProofs(sql: Sql, flowId: string, limit = 20): Promise<ProofRow[]> {
  const rows = await sql.all(`SELECT ${PROOF_COLUMNS} FROM proofs WHERE flow_id = ? ORDER BY created_at DESC LIMIT ?`, [flowId, limit]);
  return rows.map(toProof);
}

/** Each flow's newest finished proof, for the flow list's badges. */
export async function latestFinishedProofs(db: Db, flowIds: readonly string[]): Promise<ProofRow[]> {
  if (flowIds.length === 0) return [];
  const rows = await db.all(
    `SELECT ${PROOF_COLUMNS} FROM proofs p
     WHERE ${isOneOf(db.dialect, 'p.flow_id')} AND p.status <> 'running'
       AND p.created_at = (SELECT MAX(q.created_at) FROM proofs q WHERE q.flow_id = p.flow_id AND q.status <> 'running')`,
    [[...flowIds]],
  );
  return rows.map(toProof);
}

