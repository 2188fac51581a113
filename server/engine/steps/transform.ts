import type { StepKind } from './types.ts';

/** transform: names computed from templates; a single placeholder keeps its type. */
export const transformStep: StepKind<Record<string, unknown>> = {
  type: 'transform',
  prepare(node, render) {
    const outputs = (node.data.outputs ?? {}) as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    for (const [name, template] of Object.entries(outputs)) {
      result[name] = typeof template === 'string' ? render.value(template) : render.deep(template);
    }
    return result;
  },
  describe: (outputs) => outputs,
  execute: async (outputs) => ({ kind: 'succeeded', output: outputs }),
  honoursKey: () => false,
};
