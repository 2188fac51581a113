import type { StepKind } from './types.ts';

interface Comparison {
  left: unknown;
  op: string;
  right: unknown;
  missing: boolean;
}

function compare({ left, op, right, missing }: Comparison): boolean {
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
    default:
      return false;
  }
}

/** condition: picks the `true` or `false` handle; the other branch is skipped. */
export const conditionStep: StepKind<Comparison> = {
  type: 'condition',
  prepare(node, render) {
    const op = String(node.data.op);
    const leftTemplate = String(node.data.left);
    let left: unknown;
    let missing = false;
    try {
      left = render.value(leftTemplate);
    } catch (error) {
      // "exists" asks exactly whether the path is there, so a missing path is its answer.
      if (op !== 'exists' || (error as Error).name !== 'MissingPathError') throw error;
      missing = true;
    }
    const rawRight = node.data.right;
    const right = typeof rawRight === 'string' ? render.value(rawRight) : rawRight;
    return { left, op, right, missing };
  },
  describe: ({ left, op, right }) => ({ left, op, right }),
  async execute(comparison) {
    const result = compare(comparison);
    return { kind: 'succeeded', output: { result, left: comparison.left, op: comparison.op, right: comparison.right ?? null }, branch: result ? 'true' : 'false' };
  },
  honoursKey: () => false,
};
