/** Moving a run to another published version of its flow, for a rerun on the fixed version. */
import type { Sql } from './db.ts';

/** Points the run at `versionId`; the caller does it in the transaction that queues the new attempt. */
export async function moveRunToVersion(sql: Sql, runId: string, versionId: string): Promise<void> {
  await sql.run(`UPDATE runs SET version_id = ? WHERE id = ?`, [versionId, runId]);
}

/** Forgets the named checkpoints of a run, so the next attempt does those steps again. */
export async function forgetCheckpoints(sql: Sql, runId: string, nodeIds: readonly string[]): Promise<void> {
  for (const nodeId of nodeIds) await sql.run(`DELETE FROM checkpoints WHERE run_id = ? AND node_id = ?`, [runId, nodeId]);
}
