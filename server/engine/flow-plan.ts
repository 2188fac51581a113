/**
 * A published version, prepared once for execution: its steps in order, each with its
 * settings parsed by kind (flow/planned-step.ts), and who feeds whom. Versions are
 * immutable, so plans are cached by version id.
 */
import type { FlowDocument, FlowEdge } from './flow/document.ts';
import { topologicalOrder } from './flow/graph.ts';
import { bodyOf, bodyRoots, topLevel } from './flow/loop-body.ts';
import { isTriggerType } from './flow/node-types.ts';
import { planStep, type PlannedStep } from './flow/planned-step.ts';

/** The steps a For each step runs once per item, in order; the roots start each item. */
export interface BodyPlan {
  order: PlannedStep[];
  roots: ReadonlySet<string>;
}

export interface FlowPlan {
  document: FlowDocument;
  /** The top level's steps in order; the steps inside For each steps are in `bodies`. */
  order: PlannedStep[];
  bodies: ReadonlyMap<string, BodyPlan>;
  steps: ReadonlyMap<string, PlannedStep>;
  incoming: Map<string, FlowEdge[]>;
  trigger: PlannedStep | undefined;
}

export function planFlow(document: FlowDocument): FlowPlan {
  const steps = new Map(document.nodes.map((node) => [node.id, planStep(node)]));
  const incoming = new Map<string, FlowEdge[]>();
  for (const edge of document.edges) {
    const list = incoming.get(edge.target) ?? [];
    list.push(edge);
    incoming.set(edge.target, list);
  }
  const bodies = new Map<string, BodyPlan>();
  for (const loopId of new Set(document.nodes.flatMap((node) => (node.parentId === undefined ? [] : [node.parentId])))) {
    const body = bodyOf(document, loopId);
    bodies.set(loopId, { order: topologicalOrder(body).map((id) => steps.get(id)!), roots: new Set(bodyRoots(body)) });
  }
  return {
    document,
    order: topologicalOrder(topLevel(document)).map((id) => steps.get(id)!),
    bodies,
    steps,
    incoming,
    trigger: [...steps.values()].find((step) => isTriggerType(step.type)),
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
