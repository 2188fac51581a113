import type { NodeType } from '../flow/node-types.ts';
import type { TypedStep } from '../flow/planned-step.ts';
import { conditionStep } from './condition.ts';
import { delayStep } from './delay.ts';
import { emailSendStep } from './email-send.ts';
import { flowRunStep } from './flow-run.ts';
import { httpRequestStep } from './http-request.ts';
import { messagePostStep } from './message-post.ts';
import { stateTransitionStep } from './state-transition.ts';
import { transformStep } from './transform.ts';
import type { StepKind } from './types.ts';

const kinds = new Map<string, StepKind>(
  [httpRequestStep, transformStep, conditionStep, delayStep, stateTransitionStep, emailSendStep, messagePostStep, flowRunStep].map((kind) => [kind.type, kind]),
);

/** The kind that runs a step, or undefined for kinds a run never executes (triggers). */
export function stepKind<T extends NodeType>(step: TypedStep<T>): StepKind<T> | undefined {
  // Each kind is stored under its own type, so the kind found matches the step's type.
  return kinds.get(step.type) as StepKind<T> | undefined;
}
