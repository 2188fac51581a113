/**
 * Flows, their immutable versions and their triggers. Editor-paced, but on the same seam
 * as everything else (db.ts): one connection on SQLite, whose writes join the group
 * commit, and every string parameter through the masker.
 */
import { isOneOf } from './batch.ts';
import type { Db } from './db.ts';
import { FLOW_COLUMNS, FLOW_VERSION_COLUMNS, toFlow, toFlowVersion } from './rows.ts';
import { deleteTriggers, listTriggers, upsertTriggers } from './triggers.ts';
import type { FlowRow, FlowSummaryRow, FlowVersionRow, TriggerRow } from './types.ts';

/** A version to publish; `keyChanges` only when the publish confirmed changed keys. */
export type NewFlowVersion = Omit<FlowVersionRow, 'version' | 'keyChanges'> & { keyChanges?: string | null };

export function flowStore(db: Db) {
  return {
    /** Every flow with its latest published version (test snapshots, numbered below zero, are not versions). */
    async list(): Promise<FlowSummaryRow[]> {
      const rows = await db.all(
        `SELECT f.id, f.name, f.created_at, f.updated_at,
           (SELECT MAX(v.version) FROM flow_versions v WHERE v.flow_id = f.id AND v.version > 0) AS latest_version
         FROM flows f ORDER BY f.updated_at DESC`,
      );
      return rows.map((row) => ({
        id: row.id as string,
        name: row.name as string,
        createdAt: Number(row.created_at),
        updatedAt: Number(row.updated_at),
        latestVersion: row.latest_version == null ? null : Number(row.latest_version),
      }));
    },

    async get(id: string): Promise<FlowRow | null> {
      const row = await db.get(`SELECT ${FLOW_COLUMNS} FROM flows WHERE id = ?`, [id]);
      return row ? toFlow(row) : null;
    },

    async create(flow: FlowRow): Promise<void> {
      await db.run(`INSERT INTO flows (id, name, draft, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`, [
        flow.id, flow.name, flow.draft, flow.createdAt, flow.updatedAt,
      ]);
    },

    /** Returns false when the flow does not exist. */
    async saveDraft(id: string, name: string, draft: string, now: number): Promise<boolean> {
      return (await db.run(`UPDATE flows SET name = ?, draft = ?, updated_at = ? WHERE id = ?`, [name, draft, now, id])) === 1;
    },

    /** Removes the flow, its versions (by cascade) and its triggers. */
    async delete(id: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        const removed = await tx.run(`DELETE FROM flows WHERE id = ?`, [id]);
        await deleteTriggers(tx, id);
        return removed === 1;
      });
    },

    async versions(flowId: string): Promise<FlowVersionRow[]> {
      const rows = await db.all(`SELECT ${FLOW_VERSION_COLUMNS} FROM flow_versions WHERE flow_id = ? AND version > 0 ORDER BY version DESC`, [flowId]);
      return rows.map(toFlowVersion);
    },

    async version(versionId: string): Promise<FlowVersionRow | null> {
      const row = await db.get(`SELECT ${FLOW_VERSION_COLUMNS} FROM flow_versions WHERE id = ?`, [versionId]);
      return row ? toFlowVersion(row) : null;
    },

    async latestVersion(flowId: string): Promise<FlowVersionRow | null> {
      const row = await db.get(`SELECT ${FLOW_VERSION_COLUMNS} FROM flow_versions WHERE flow_id = ? AND version > 0 ORDER BY version DESC LIMIT 1`, [flowId]);
      return row ? toFlowVersion(row) : null;
    },

    /** Versions' numbers by id, for lists that show which version a run ran. */
    async versionNumbers(versionIds: string[]): Promise<Map<string, number>> {
      if (versionIds.length === 0) return new Map();
      const rows = await db.all<{ id: string; version: number }>(
        `SELECT id, version FROM flow_versions WHERE ${isOneOf(db.dialect, 'id')}`,
        [versionIds],
      );
      return new Map(rows.map((row) => [row.id, Number(row.version)]));
    },

    /**
     * Publishes the next version number with the flow's triggers, in one transaction.
     * Publishes of one flow take turns on the flow's row (SQLite's writers always take
     * turns), so each numbers after the one before; the unique (flow, version) index
     * stays the last word.
     */
    async publish(version: NewFlowVersion, triggers: Omit<TriggerRow, 'flowId'>[]): Promise<FlowVersionRow> {
      return db.transaction(async (tx) => {
        if (tx.dialect === 'postgresql') await tx.get(`SELECT id FROM flows WHERE id = ? FOR UPDATE`, [version.flowId]);
        const row = await tx.get(
          `INSERT INTO flow_versions (id, flow_id, version, document, created_at, created_by, key_changes)
           SELECT ?, ?, COALESCE(MAX(version), 0) + 1, ?, CAST(? AS BIGINT), ?, ? FROM flow_versions WHERE flow_id = ? AND version > 0
           RETURNING ${FLOW_VERSION_COLUMNS}`,
          [version.id, version.flowId, version.document, version.createdAt, version.createdBy, version.keyChanges ?? null, version.flowId],
        );
        await upsertTriggers(tx, version.flowId, triggers, version.createdAt);
        return toFlowVersion(row!);
      });
    },

    /**
     * Keeps the draft as it is now for test runs: a version numbered below zero, which is
     * never live (no trigger, webhook, schedule or version list sees it) and never changes.
     * The same document tested again reuses its snapshot.
     */
    async snapshotForTest(version: NewFlowVersion): Promise<FlowVersionRow> {
      return db.transaction(async (tx) => {
        if (tx.dialect === 'postgresql') await tx.get(`SELECT id FROM flows WHERE id = ? FOR UPDATE`, [version.flowId]);
        const same = await tx.get(
          `SELECT ${FLOW_VERSION_COLUMNS} FROM flow_versions WHERE flow_id = ? AND version < 0 AND document = ? ORDER BY version LIMIT 1`,
          [version.flowId, version.document],
        );
        if (same) return toFlowVersion(same);
        const row = await tx.get(
          `INSERT INTO flow_versions (id, flow_id, version, document, created_at, created_by)
           SELECT ?, ?, COALESCE(MIN(version), 0) - 1, ?, CAST(? AS BIGINT), ? FROM flow_versions WHERE flow_id = ? AND version < 0
           RETURNING ${FLOW_VERSION_COLUMNS}`,
          [version.id, version.flowId, version.document, version.createdAt, version.createdBy, version.flowId],
        );
        return toFlowVersion(row!);
      });
    },

    async triggers(flowId: string): Promise<TriggerRow[]> {
      return listTriggers(db, flowId);
    },
  };
}

export type FlowStore = ReturnType<typeof flowStore>;
