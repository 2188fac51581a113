/**
 * Retention (ONCEFLOW_RETENTION): ended runs older than the setting are deleted with their
 * timelines and checkpoints, a batch per transaction. Claims are never touched here: a key
 * lives until its own time to live (store/expired-keys.ts), whatever became of its run.
 */
import { isOneOf } from './batch.ts';
import type { Sql } from './db.ts';
import { deleteInputValues } from './input-values.ts';
import { parseJson } from './rows.ts';

/** Only a run that has ended may go; one still running, waiting or needing review is kept whatever its age. */
const ENDED = `('succeeded', 'failed', 'cancelled')`;

/**
 * A run started by another run's Run flow step goes with the run that started it: while
 * that run is kept (it may have ended later, or still be waiting), so is its child, and
 * the link between them never points at nothing. Once the parent is gone, a later batch
 * takes the child.
 */
const PARENT_GONE = `(parent_run_id IS NULL OR NOT EXISTS (SELECT 1 FROM runs AS parent WHERE parent.id = runs.parent_run_id))`;

/**
 * The same for a proof's test runs (their scope is `<proof id>:<check>`, prove.ts): a
 * proof report is kept, and links to each run of each check, so those runs are kept with it.
 */
const NO_PROOF = `(test_scope IS NULL OR NOT EXISTS (SELECT 1 FROM proofs WHERE substr(runs.test_scope, 1, length(proofs.id) + 1) = proofs.id || ':'))`;

/**
 * Deletes up to `limit` ended runs created and finished before `before`, oldest first, with
 * their timeline events and checkpoints. Call inside one transaction. The runs are deleted
 * first under the same conditions, so a run rerun meanwhile (no longer ended) is kept with
 * everything it has; only what was deleted loses its children. Returns the runs deleted.
 */
export async function deleteOldRuns(sql: Sql, before: number, limit: number): Promise<number> {
  const deleted = await sql.all<{ id: string; seq: number; input: string; trigger_kind: string }>(
    `DELETE FROM runs WHERE id IN (
       SELECT id FROM runs WHERE created_at < ? AND status IN ${ENDED} AND (finished_at IS NULL OR finished_at < ?) AND ${PARENT_GONE} AND ${NO_PROOF} ORDER BY created_at LIMIT ?
     ) AND status IN ${ENDED} RETURNING id, seq, input, trigger_kind`,
    [before, before, limit],
  );
  if (deleted.length === 0) return 0;
  const ids = deleted.map((row) => row.id);
  await retireRunNumbers(sql, deleted.reduce((highest, row) => Math.max(highest, Number(row.seq)), 0));
  // Their searchable input values, found again from the inputs (input-values.ts).
  await deleteInputValues(sql, deleted.map((row) => ({ seq: Number(row.seq), input: parseJson(row.input), triggerKind: row.trigger_kind })));
  await sql.run(`DELETE FROM timeline_events WHERE ${isOneOf(sql.dialect, 'run_id')}`, [ids]);
  await sql.run(`DELETE FROM checkpoints WHERE ${isOneOf(sql.dialect, 'run_id')}`, [ids]);
  return deleted.length;
}

/**
 * Records the highest run number deleted, so SQLite never numbers a new run with it
 * (runs.ts `nextSeq`); the record only ever rises.
 */
async function retireRunNumbers(sql: Sql, highest: number): Promise<void> {
  await sql.run(
    `INSERT INTO retired_run_numbers (id, highest) VALUES (1, ?)
     ON CONFLICT (id) DO UPDATE SET highest = excluded.highest WHERE retired_run_numbers.highest < excluded.highest`,
    [highest],
  );
}

/**
 * Deletes up to `limit` deliveries received before `before` whose dedupe window has ended.
 * A delivery still inside its window is the record that refuses a repeat of its event id,
 * a key still needed, so retention never takes it early.
 */
export async function deleteOldDeliveries(sql: Sql, before: number, now: number, limit: number): Promise<number> {
  return sql.run(
    `DELETE FROM inbound_events WHERE id IN (SELECT id FROM inbound_events WHERE expires_at < ? AND received_at < ? ORDER BY expires_at LIMIT ?)`,
    [now, before, limit],
  );
}

/** The oldest run still kept (any status), for "oldest kept run: #12 of 3 Jun"; null when there are none. */
export async function oldestKeptRun(sql: Sql): Promise<{ id: string; seq: number; createdAt: number } | null> {
  const row = await sql.get<{ id: string; seq: number; created_at: number }>(`SELECT id, seq, created_at FROM runs ORDER BY created_at LIMIT 1`);
  return row ? { id: row.id, seq: Number(row.seq), createdAt: Number(row.created_at) } : null;
}
