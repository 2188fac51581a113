import type { StepKind } from './types.ts';

/** transform: names computed from templates; a single placeholder keeps its type. */
export const transformStep: StepKind<'transform', Record<string, unknown>> = {
  type: 'transform',
  prepare(step, render) {
    const result: Record<string, unknown> = {};
    for (const [name, template] of Object.entries(step.data.outputs)) result[name] = render.value(template);
    return result;
  },
  describe: (outputs) => outputs,
  execute: async (outputs) => ({ kind: 'succeeded', output: outputs }),
  honoursKey: () => false,
};
