/**
 * A published version, prepared once for execution: its steps in order and who feeds
 * whom. Versions are immutable, so plans are cached by version id.
 */
import type { FlowDocument, FlowEdge, FlowNode } from './flow/document.ts';
import { topologicalOrder } from './flow/graph.ts';
import { isTriggerType } from './flow/node-types.ts';

export interface FlowPlan {
  document: FlowDocument;
  order: FlowNode[];
  incoming: Map<string, FlowEdge[]>;
  trigger: FlowNode | undefined;
}

export function planFlow(document: FlowDocument): FlowPlan {
  const byId = new Map(document.nodes.map((node) => [node.id, node]));
  const incoming = new Map<string, FlowEdge[]>();
  for (const edge of document.edges) {
    const list = incoming.get(edge.target) ?? [];
    list.push(edge);
    incoming.set(edge.target, list);
  }
  return {
    document,
    order: topologicalOrder(document).map((id) => byId.get(id)!),
    incoming,
    trigger: document.nodes.find((node) => isTriggerType(node.type)),
  };
}

export class PlanCache {
  private readonly plans = new Map<string, FlowPlan>();
  constructor(
    private readonly load: (versionId: string) => Promise<FlowDocument | null>,
    private readonly capacity = 500,
  ) {}

  async get(versionId: string): Promise<FlowPlan | null> {
    const cached = this.plans.get(versionId);
    if (cached) return cached;
    const document = await this.load(versionId);
    if (!document) return null;
    const plan = planFlow(document);
    if (this.plans.size >= this.capacity) this.plans.delete(this.plans.keys().next().value!);
    this.plans.set(versionId, plan);
    return plan;
  }
}
