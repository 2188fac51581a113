/**
 * Triggers: one row per (flow, trigger node), kept across versions, whose unguessable
 * hook id is the webhook URL. Webhook intake finds a hook here on every delivery; the
 * scheduler reads the schedules and records each fire time it hands to a run.
 */
import { batchRows, perDialect } from './batch.ts';
import type { Sql } from './db.ts';
import { toTrigger, TRIGGER_COLUMNS } from './rows.ts';
import type { StoredTriggerRow, TriggerRow } from './types.ts';

// SQLite needs the `WHERE true` to read the ON CONFLICT clause after a SELECT.
const UPSERT_TRIGGERS = perDialect((dialect) =>
  `INSERT INTO triggers (hook_id, flow_id, node_id, kind, created_at)
   SELECT hook_id, flow_id, node_id, kind, created_at FROM ${batchRows(dialect, [
     ['hook_id', 'text'], ['flow_id', 'text'], ['node_id', 'text'], ['kind', 'text'], ['created_at', 'bigint'],
   ])} WHERE true
   ON CONFLICT (flow_id, node_id) DO UPDATE SET kind = excluded.kind`);

/** Adds a flow's new trigger nodes; a node already known keeps its hook id (its kind follows the document). */
export async function upsertTriggers(sql: Sql, flowId: string, triggers: readonly Omit<TriggerRow, 'flowId'>[], now: number): Promise<void> {
  if (triggers.length === 0) return;
  const rows = triggers.map((trigger) => [trigger.hookId, flowId, trigger.nodeId, trigger.kind, now]);
  await sql.run(UPSERT_TRIGGERS[sql.dialect], [rows]);
}

export async function listTriggers(sql: Sql, flowId: string): Promise<TriggerRow[]> {
  const rows = await sql.all(`SELECT ${TRIGGER_COLUMNS} FROM triggers WHERE flow_id = ? ORDER BY node_id`, [flowId]);
  return rows.map((row) => {
    const { hookId, nodeId, kind } = toTrigger(row);
    return { hookId, flowId, nodeId, kind };
  });
}

export async function deleteTriggers(sql: Sql, flowId: string): Promise<void> {
  await sql.run(`DELETE FROM triggers WHERE flow_id = ?`, [flowId]);
}

/** A hook with the latest published version of its flow; undefined for an unknown hook or an unpublished flow. */
export async function findHook(sql: Sql, hookId: string): Promise<(TriggerRow & { versionId: string }) | undefined> {
  const row = await sql.get<{ flow_id: string; node_id: string; kind: string; version_id: string }>(
    `SELECT t.flow_id, t.node_id, t.kind, v.id AS version_id FROM triggers t
     JOIN flow_versions v ON v.flow_id = t.flow_id AND v.version > 0
     WHERE t.hook_id = ? ORDER BY v.version DESC LIMIT 1`,
    [hookId],
  );
  return row && { hookId, flowId: row.flow_id, nodeId: row.node_id, kind: row.kind, versionId: row.version_id };
}

export interface ScheduleTrigger extends StoredTriggerRow {
  /** The latest published version of the flow, or null when none is. */
  versionId: string | null;
}

export async function listScheduleTriggers(sql: Sql): Promise<ScheduleTrigger[]> {
  const columns = TRIGGER_COLUMNS.split(', ').map((column) => `t.${column}`).join(', ');
  const rows = await sql.all(
    `SELECT ${columns},
       (SELECT v.id FROM flow_versions v WHERE v.flow_id = t.flow_id AND v.version > 0 ORDER BY v.version DESC LIMIT 1) AS version_id
     FROM triggers t WHERE t.kind = 'trigger.schedule'`,
  );
  return rows.map((row) => ({ ...toTrigger(row), versionId: (row.version_id as string | null) ?? null }));
}

/** Moves a schedule's last fire time forward (never back: fires may be recorded out of order). */
export async function recordScheduleFire(sql: Sql, hookId: string, fireAt: number): Promise<void> {
  await sql.run(`UPDATE triggers SET last_fire_at = ? WHERE hook_id = ? AND (last_fire_at IS NULL OR last_fire_at < ?)`, [fireAt, hookId, fireAt]);
}
