/**
 * Finds the trigger behind a webhook id: its flow, node and the latest published
 * version's settings. Looked up on every delivery, so answers are cached briefly (default:
 * 2 s); a newly published version is picked up within that time.
 */
import type { Db } from '../store/db.ts';
import { findHook } from '../store/triggers.ts';
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
      const hook = await findHook(db, hookId);
      let info: TriggerInfo | null = null;
      if (hook) {
        const plan = await plans.get(hook.versionId);
        const node = plan?.document.nodes.find((candidate) => candidate.id === hook.nodeId);
        if (node && node.type === hook.kind) info = { ...hook, node };
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
