/**
 * Version lookups remembered for one preview or one batch: thousands of runs share a few
 * flows and versions, so each is read once instead of once per run.
 */
import type { FlowStore } from '../../store/flows.ts';
import type { FlowVersionRow } from '../../store/types.ts';

export type VersionLookups = Pick<FlowStore, 'version' | 'latestVersion'>;

export function rememberedVersions(flows: VersionLookups): VersionLookups {
  const versions = new Map<string, Promise<FlowVersionRow | null>>();
  const latest = new Map<string, Promise<FlowVersionRow | null>>();
  const once = (cache: Map<string, Promise<FlowVersionRow | null>>, id: string, read: () => Promise<FlowVersionRow | null>) => {
    let value = cache.get(id);
    if (!value) cache.set(id, (value = read()));
    return value;
  };
  return {
    version: (id) => once(versions, id, () => flows.version(id)),
    latestVersion: (flowId) => once(latest, flowId, () => flows.latestVersion(flowId)),
  };
}
