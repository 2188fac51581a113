import { z } from 'zod';

/**
 * The flow document (DESIGN.md §3), the stable shape used by import/export, the editor
 * and the engine. A node's `type` stays a plain string here so that validate.ts can say
 * "unknown kind" in a sentence; what each type needs lives in node-types.ts.
 */

export const FLOW_FORMAT = 'onceflow/v1';

export const NODE_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

const positionSchema = z.object({
  x: z.number().default(0),
  y: z.number().default(0),
});

export const flowNodeSchema = z.object({
  id: z.string().min(1).regex(NODE_ID_PATTERN),
  type: z.string().min(1),
  position: positionSchema.default({ x: 0, y: 0 }),
  data: z.record(z.string(), z.unknown()).default({}),
});

export const flowEdgeSchema = z.object({
  id: z.string().min(1),
  source: z.string().min(1),
  target: z.string().min(1),
  sourceHandle: z.string().nullable().optional(),
  targetHandle: z.string().nullable().optional(),
});

export const flowDocumentSchema = z.object({
  format: z.literal(FLOW_FORMAT),
  name: z.string().regex(/\S/),
  description: z.string().optional(),
  // Stands for trigger.body in previews and the field picker.
  sampleInput: z.json().optional(),
  nodes: z.array(flowNodeSchema),
  edges: z.array(flowEdgeSchema).default([]),
});

export type FlowDocument = z.output<typeof flowDocumentSchema>;
export type FlowNode = z.output<typeof flowNodeSchema>;
export type FlowEdge = z.output<typeof flowEdgeSchema>;

// Methods that only read (RFC 9110 "safe" methods), so repeating them changes nothing.
const READ_ONLY_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

/**
 * Whether a step changes something outside Onceflow and so needs a key. An explicit
 * `sideEffect` wins; an HTTP request whose method cannot be read counts as one, since
 * guessing "harmless" wrongly could act twice.
 */
export function isSideEffectStep(node: Pick<FlowNode, 'type' | 'data'>): boolean {
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

export { parseDuration, isDuration, DURATION_PATTERN } from './duration.ts';
export {
  NODE_TYPES,
  TRIGGER_TYPES,
  NODE_DATA_SCHEMAS,
  CONDITION_OPS,
  HTTP_METHODS,
  isNodeType,
  isTriggerType,
  commonStepFields,
  retrySchema,
  manualTriggerDataSchema,
  webhookTriggerDataSchema,
  scheduleTriggerDataSchema,
  httpRequestDataSchema,
  emailSendDataSchema,
  messagePostDataSchema,
  transformDataSchema,
  conditionDataSchema,
  delayDataSchema,
  stateTransitionDataSchema,
  type NodeType,
  type TriggerType,
} from './node-types.ts';
