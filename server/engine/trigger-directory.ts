/**
 * Finds the trigger behind a webhook id: its flow, node and the latest published
 * version's settings. Looked up on every delivery, so answers are cached briefly (default:
 * 2 s); a newly published version is picked up within that time.
 */
import type { Db } from '../store/db.ts';
import type { FlowNode } from './flow/document.ts';
import type { PlanCache } from './flow-plan.ts';

export interface TriggerInfo {
  hookId: string;
  flowId: string;
  nodeId: string;
  kind: string;
  versionId: string;
  node: FlowNode;
}

export function triggerDirectory(db: Db, plans: PlanCache, clock: () => number, ttlMs = 2000) {
  const cache = new Map<string, { info: TriggerInfo | null; until: number }>();
  return {
    async find(hookId: string): Promise<TriggerInfo | null> {
      const now = clock();
      const cached = cache.get(hookId);
      if (cached && cached.until > now) return cached.info;
      const row = await db.get<{ flow_id: string; node_id: string; kind: string; version_id: string }>(
        `SELECT t.flow_id, t.node_id, t.kind, v.id AS version_id FROM triggers t
         JOIN flow_versions v ON v.flow_id = t.flow_id
         WHERE t.hook_id = ? ORDER BY v.version DESC LIMIT 1`,
        [hookId],
      );
      let info: TriggerInfo | null = null;
      if (row) {
        const plan = await plans.get(row.version_id);
        const node = plan?.document.nodes.find((candidate) => candidate.id === row.node_id);
        if (node && node.type === row.kind) {
          info = { hookId, flowId: row.flow_id, nodeId: row.node_id, kind: row.kind, versionId: row.version_id, node };
        }
      }
      if (cache.size > 10_000) cache.clear();
      cache.set(hookId, { info, until: now + ttlMs });
      return info;
    },
    forget(): void {
      cache.clear();
    },
  };
}

export type TriggerDirectory = ReturnType<typeof triggerDirectory>;
