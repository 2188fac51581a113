import { conditionStep } from './condition.ts';
import { delayStep } from './delay.ts';
import { emailSendStep } from './email-send.ts';
import { httpRequestStep } from './http-request.ts';
import { messagePostStep } from './message-post.ts';
import { stateTransitionStep } from './state-transition.ts';
import { transformStep } from './transform.ts';
import type { StepKind } from './types.ts';

const kinds = new Map<string, StepKind<any>>(); // eslint-disable-line @typescript-eslint/no-explicit-any

export function registerStepKind(kind: StepKind<any>): void { // eslint-disable-line @typescript-eslint/no-explicit-any
  kinds.set(kind.type, kind);
}

for (const kind of [httpRequestStep, transformStep, conditionStep, delayStep, stateTransitionStep, emailSendStep, messagePostStep]) registerStepKind(kind);

export function stepKind(type: string): StepKind<unknown> | undefined {
  return kinds.get(type) as StepKind<unknown> | undefined;
}
