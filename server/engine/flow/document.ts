import { z } from 'zod';
import { FLOW_FORMAT } from '../../../core/step-kinds.ts';
import { alertSettingsSchema } from './alert-settings.ts';

export { FLOW_FORMAT, isSideEffectStep } from '../../../core/step-kinds.ts';

/**
 * The flow document (DESIGN.md §3), the stable shape used by import/export, the editor
 * and the engine. A node's `type` stays a plain string here so that validate.ts can say
 * "unknown kind" in a sentence; what each type needs lives in node-types.ts.
 */

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
  // The For each step whose body this step is in (React Flow's field for a group's children).
  parentId: z.string().min(1).optional(),
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
  // Named samples beside the default one (core/samples.ts); names are checked in validate-samples.ts.
  samples: z.array(z.object({ name: z.string(), input: z.json() })).optional(),
  nodes: z.array(flowNodeSchema),
  edges: z.array(flowEdgeSchema).default([]),
  // How the flow behaves around its runs (validate-settings.ts checks the values).
  settings: z.object({
    // Delays before automatic reruns of a failed run, e.g. ["1m", "10m", "1h"].
    retryFailedRuns: z.array(z.string()).optional(),
    // Who is told when a run fails or needs review (alert-settings.ts); none: the stored default.
    alerts: alertSettingsSchema.optional(),
  }).loose().optional(),
});

export type FlowDocument = z.output<typeof flowDocumentSchema>;
export type FlowNode = z.output<typeof flowNodeSchema>;
export type FlowEdge = z.output<typeof flowEdgeSchema>;

export { parseDuration, isDuration, DURATION_PATTERN } from '../../../core/duration.ts';
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
  forEachDataSchema,
  flowRunDataSchema,
  type NodeType,
  type TriggerType,
} from './node-types.ts';
