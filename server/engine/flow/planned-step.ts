import type { FlowNode } from './document.ts';
import { NODE_DATA_SCHEMAS, isNodeType, type NodeType, type StepData } from './node-types.ts';
import { dataIssueToProblem } from './problems.ts';
import { isSideEffectStep, stepLabel } from '../../../core/step-kinds.ts';

/**
 * A node read once, when its version is planned, into what the engine runs: its settings
 * parsed by its kind's schema, so steps read typed fields instead of guessing at `data`.
 * Versions are validated when published, so a step that cannot be read comes only from
 * an older server or a newer editor; it fails when a run reaches it, as an unknown kind did.
 */

interface PlannedBase {
  id: string;
  /** Its label, or its id when it has none. */
  label: string;
  /** Changes something outside Onceflow, so it runs under a claim (step-kinds.ts). */
  sideEffect: boolean;
  /**
   * Set on one item's run of a step inside a For each (`id` is then `send@3`): the step's
   * own id, which names its key scope, so every item claims in the step's scope.
   */
  bodyStepId?: string;
}

/** A step of a known kind with valid settings, discriminated by `type`. */
export type TypedStep<T extends NodeType = NodeType> = T extends NodeType
  ? PlannedBase & { type: T; data: StepData<T>; problem?: undefined }
  : never;

/** A step this server cannot run; `problem` says why, in words for the person who drew it. */
export interface UnrunnableStep extends PlannedBase {
  type: string;
  data: Record<string, unknown>;
  problem: string;
}

export type PlannedStep = TypedStep | UnrunnableStep;

export function planStep(node: FlowNode): PlannedStep {
  const base = { id: node.id, label: stepLabel(node), sideEffect: isSideEffectStep(node) };
  if (!isNodeType(node.type)) {
    return { ...base, type: node.type, data: node.data, problem: `This server cannot run steps of kind "${node.type}".` };
  }
  const parsed = NODE_DATA_SCHEMAS[node.type].safeParse(node.data);
  if (!parsed.success) {
    const problem = parsed.error.issues.map((issue) => dataIssueToProblem(node, issue).message).join(' ');
    return { ...base, type: node.type, data: node.data, problem };
  }
  // The schema was chosen by this very type, so the pair matches.
  return { ...base, type: node.type, data: parsed.data } as TypedStep;
}
