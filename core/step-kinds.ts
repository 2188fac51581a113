/**
 * The kinds of step and the plain facts about them, without any schema library: the web
 * editor imports this, and it should not carry a validator it never runs. The schemas are
 * in server/engine/flow/ (node-types.ts and document.ts), which re-export all of this.
 */

export const FLOW_FORMAT = 'onceflow/v1';

export const TRIGGER_TYPES = ['trigger.manual', 'trigger.webhook', 'trigger.schedule'] as const;

export const NODE_TYPES = [
  ...TRIGGER_TYPES,
  'http.request',
  'email.send',
  'message.post',
  'transform',
  'condition',
  'delay',
  'state.transition',
  'for.each',
  'flow.run',
] as const;

export type NodeType = (typeof NODE_TYPES)[number];
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export function isNodeType(type: string): type is NodeType {
  return (NODE_TYPES as readonly string[]).includes(type);
}

export function isTriggerType(type: string): type is TriggerType {
  return (TRIGGER_TYPES as readonly string[]).includes(type);
}

export const HTTP_METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const CONDITION_OPS = ['equals', 'not_equals', 'contains', 'exists', 'gt', 'lt'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** The exits a condition leaves through; every other kind has one exit that all its edges share. */
export const CONDITION_HANDLES = ['true', 'false'] as const;
export type ConditionHandle = (typeof CONDITION_HANDLES)[number];

export function isConditionHandle(value: unknown): value is ConditionHandle {
  return (CONDITION_HANDLES as readonly unknown[]).includes(value);
}

/**
 * A For each step runs its body (the steps whose `parentId` names it) once per item of a
 * list. Limits are checked before the first item (default: 10,000 items, 1 at a time).
 */
export const FOR_EACH = {
  type: 'for.each',
  label: 'For each',
  defaultConcurrency: 1,
  maxConcurrency: 20,
  defaultMaxItems: 10_000,
} as const;

/**
 * A Run flow step starts a run of another flow's published version with an input and
 * waits for its result. The child run is claimed under the step's key, so the step is a
 * side effect whatever it declares: a rerun or replay of the parent never starts a second
 * child (server/engine/steps/flow-run.ts).
 */
export const FLOW_RUN = {
  type: 'flow.run',
  label: 'Run flow',
} as const;

/** Values only a For each step's body can use: the current item and its position (from 1). */
export const LOOP_ROOTS: readonly string[] = ['item', 'loop'];

/** What a step is called where people see it: its label, or its id when it has none. */
export function stepLabel(node: { id: string; data: Record<string, unknown> }): string {
  const label = node.data.label;
  return typeof label === 'string' && label.trim() !== '' ? label : node.id;
}

const READ_ONLY_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

/**
 * Whether a step changes something outside Onceflow and so needs a key. An explicit
 * `sideEffect` wins; an HTTP request whose method cannot be read counts as one, since
 * guessing "harmless" wrongly could act twice.
 */
export function isSideEffectStep(node: { type: string; data: Record<string, unknown> }): boolean {
  // Its key is what keeps one child run per parent key, so it cannot be turned off.
  if (node.type === FLOW_RUN.type) return true;
  const declared = node.data.sideEffect;
  if (typeof declared === 'boolean') return declared;
  switch (node.type) {
    case 'email.send':
    case 'message.post':
      return true;
    case 'http.request': {
      const request = node.data.request;
      const method =
        request !== null && typeof request === 'object' ? (request as Record<string, unknown>).method : undefined;
      return typeof method !== 'string' || !READ_ONLY_METHODS.includes(method.trim().toUpperCase());
    }
    default:
      return false;
  }
}
