/**
 * Checks at publish of the flows a flow runs (Run flow steps): each must exist and have a
 * published version, and no chain of published versions may lead back to the flow being
 * published (A runs B, B runs A), or a run would start runs without end.
 */
import type { FlowStore } from '../store/flows.ts';
import { FLOW_RUN } from '../../core/step-kinds.ts';
import type { FlowDocument } from './flow/document.ts';
import { stepName, type FlowProblem } from './flow/problems.ts';

/** The flows a document's Run flow steps name, with the steps that name them. */
export function flowsRunBy(document: Pick<FlowDocument, 'nodes'>): Array<{ node: FlowDocument['nodes'][number]; flowId: string }> {
  return document.nodes.flatMap((node) => {
    const flowId = node.type === FLOW_RUN.type ? node.data.flowId : undefined;
    return typeof flowId === 'string' && flowId.trim() !== '' ? [{ node, flowId: flowId.trim() }] : [];
  });
}

export async function checkFlowReferences(store: FlowStore, flowId: string, document: FlowDocument): Promise<FlowProblem[]> {
  const problems: FlowProblem[] = [];
  const names = new Map<string, string>([[flowId, document.name]]);
  // Each flow's latest published version's Run flow targets, read once.
  const targets = new Map<string, string[]>();
  const targetsOf = async (id: string): Promise<string[]> => {
    let found = targets.get(id);
    if (found) return found;
    const version = await store.latestVersion(id);
    const published = version ? (JSON.parse(version.document) as FlowDocument) : undefined;
    if (published) names.set(id, published.name);
    found = published ? flowsRunBy(published).map((reference) => reference.flowId) : [];
    targets.set(id, found);
    return found;
  };
  /** A chain of flow ids from `start` back to `flowId` through published versions, if any. */
  const chainBack = async (start: string): Promise<string[] | undefined> => {
    const seen = new Set<string>();
    const walk = async (id: string, path: string[]): Promise<string[] | undefined> => {
      if (id === flowId) return path;
      if (seen.has(id)) return undefined;
      seen.add(id);
      for (const next of await targetsOf(id)) {
        const chain = await walk(next, [...path, next]);
        if (chain) return chain;
      }
      return undefined;
    };
    return walk(start, [start]);
  };

  for (const { node, flowId: target } of flowsRunBy(document)) {
    const base = { severity: 'error' as const, nodeId: node.id, field: 'flowId' };
    const step = stepName(node);
    if (target === flowId) {
      problems.push({ ...base, code: 'flow_run_cycle', message: `${step} runs this flow itself, so every run would start another one without end. Choose another flow to run.` });
      continue;
    }
    const flow = await store.get(target);
    if (!flow) {
      problems.push({ ...base, code: 'flow_run_missing', message: `${step} runs a flow that does not exist on this server (${target}). Choose the flow to run.` });
      continue;
    }
    if (!(await store.latestVersion(target))) {
      problems.push({ ...base, code: 'flow_run_unpublished', message: `${step} runs "${flow.name}", which has no published version yet. Publish "${flow.name}" first.` });
      continue;
    }
    const chain = await chainBack(target);
    if (chain) {
      const shown = [flowId, ...chain].map((id) => `"${names.get(id) ?? id}"`).join(' → ');
      problems.push({ ...base, code: 'flow_run_cycle', message: `${step} runs "${names.get(target) ?? flow.name}", which leads back to this flow (${shown}), so a run would start runs without end. Remove one of the Run flow steps in that chain.` });
    }
  }
  return problems;
}
