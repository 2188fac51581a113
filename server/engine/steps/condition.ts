import { isConditionHandle, type ConditionHandle, type ConditionOp } from '../../../core/step-kinds.ts';
import type { StepKind } from './types.ts';

export interface Comparison {
  left: unknown;
  op: ConditionOp;
  right: unknown;
  missing: boolean;
}

/** Whether the condition holds; Try this step shows the same answer without running it. */
export function compare({ left, op, right, missing }: Comparison): boolean {
  const asNumber = (value: unknown) => (typeof value === 'number' ? value : Number(value));
  switch (op) {
    case 'exists':
      return !missing && left !== null && left !== '';
    case 'equals':
      return String(left) === String(right);
    case 'not_equals':
      return String(left) !== String(right);
    case 'contains':
      return Array.isArray(left) ? left.map(String).includes(String(right)) : String(left).includes(String(right));
    case 'gt':
      return asNumber(left) > asNumber(right);
    case 'lt':
      return asNumber(left) < asNumber(right);
  }
}

/**
 * condition: picks the `true` or `false` exit and records it in its output as `branch`;
 * the other branch is skipped.
 */
export const conditionStep: StepKind<'condition', Comparison> = {
  type: 'condition',
  prepare(step, render) {
    const { op, right: rawRight } = step.data;
    let left: unknown;
    let missing = false;
    try {
      left = render.value(step.data.left);
    } catch (error) {
      // "exists" asks exactly whether the path is there, so a missing path is its answer.
      if (op !== 'exists' || (error as Error).name !== 'MissingPathError') throw error;
      missing = true;
    }
    const right = typeof rawRight === 'string' ? render.value(rawRight) : rawRight;
    return { left, op, right, missing };
  },
  describe: ({ left, op, right }) => ({ left, op, right }),
  async execute(comparison) {
    const result = compare(comparison);
    const branch: ConditionHandle = result ? 'true' : 'false';
    return { kind: 'succeeded', output: { result, branch, left: comparison.left, op: comparison.op, right: comparison.right ?? null } };
  },
  honoursKey: () => false,
  branchOf(output) {
    const recorded = (output ?? {}) as { result?: unknown; branch?: unknown };
    if (isConditionHandle(recorded.branch)) return recorded.branch;
    // Checkpoints written before the branch was recorded name it only by their result.
    return recorded.result ? 'true' : 'false';
  },
};
