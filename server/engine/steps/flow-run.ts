import type { StepKind } from './types.ts';

/** What a Run flow step starts: a flow (its latest published version) and the child's input. */
export interface FlowRunPlan {
  flowId: string;
  input: unknown;
}

/**
 * flow.run: starts a run of another flow and waits for its result. The step is a side
 * effect whose key claims the child run; the claim, the child and the wait are carried
 * out by the executor (child-run.ts), since starting a run is a write to our own database
 * rather than a call to the outside. The kind renders the input and describes the
 * request, which is fingerprinted like any other step's.
 */
export const flowRunStep: StepKind<'flow.run', FlowRunPlan> = {
  type: 'flow.run',
  prepare(step, render) {
    const input = step.data.input;
    // A template alone keeps its value's type ({{ trigger.body.order }} is an object).
    const rendered = input === undefined ? {} : typeof input === 'string' ? render.value(input) : render.deep(input);
    return { flowId: step.data.flowId, input: rendered };
  },
  describe: (plan) => ({ flowId: plan.flowId, input: plan.input }),
  async execute() {
    return { kind: 'failed', message: 'A Run flow step starts its child run only inside a run of its flow.' };
  },
  // Starting the child is recorded with the claim in one transaction: a repeat finds it.
  honoursKey: () => true,
};
