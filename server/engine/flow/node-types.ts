import { z } from 'zod';
import { DURATION_HINT, isDuration } from '../../../core/duration.ts';
import { CONDITION_OPS, FOR_EACH, HTTP_METHODS, type NodeType } from '../../../core/step-kinds.ts';
import { fieldLabel } from './field-labels.ts';

export { CONDITION_OPS, HTTP_METHODS, NODE_TYPES, TRIGGER_TYPES, isNodeType, isTriggerType, type NodeType, type TriggerType } from '../../../core/step-kinds.ts';

/**
 * The kinds of step and what each needs in its `data` (DESIGN.md §3). Schemas are loose:
 * fields they do not know are kept, so an older server does not drop what a newer editor
 * wrote. Only what a step cannot run without is required.
 *
 * Messages of custom checks are phrased to follow the step's name, e.g.
 * `Step "Wait" (wait) needs a wait time …`; problems.ts adds the name.
 */

// RFC 9110 token: what a header name may be made of.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const text = z.string().min(1);

// Later steps read outputs as {{ steps.id.output.name }}, so names must be path segments.
const OUTPUT_NAME = /^[A-Za-z0-9_-]+$/;

const headerName = z.string().regex(HEADER_NAME);

/** A duration, or a template that renders to one at run time. */
function duration(label: string, allowTemplate: boolean) {
  return z.string().superRefine((value, ctx) => {
    if (isDuration(value) || (allowTemplate && value.includes('{{'))) return;
    ctx.addIssue({
      code: 'custom',
      message: `has "${value}" in ${label}, which is not a length of time: write ${DURATION_HINT}`,
    });
  });
}

export const retrySchema = z.looseObject({
  max: z.number().int().min(0).max(10),
  backoff: z.enum(['exponential', 'fixed']).optional(),
  delayMs: z.number().int().min(0).optional(),
});

/** Fields any step may carry; the key fields matter only for side-effect steps. */
export const commonStepFields = {
  label: z.string().optional(),
  sideEffect: z.boolean().optional(),
  key: z.string().optional(),
  keyScope: z.string().optional(),
  // The key text a person confirmed when its fields are missing from the samples.
  keyConfirmed: z.string().optional(),
  // (default: 30 days)
  keyTtl: duration(fieldLabel('', 'keyTtl'), false).optional(),
  retry: retrySchema.optional(),
  onUncertain: z.enum(['review', 'retry']).optional(),
  receiverKeyHeader: headerName.optional(),
  timeoutMs: z.number().int().positive().optional(),
};

const stepData = <T extends z.ZodRawShape>(shape: T) => z.looseObject({ ...commonStepFields, ...shape });

export const manualTriggerDataSchema = stepData({});

export const webhookTriggerDataSchema = stepData({
  eventId: text,
  signature: z
    .looseObject({ scheme: text, secret: text, header: headerName.optional() })
    .optional(),
});

export const scheduleTriggerDataSchema = stepData({
  cron: text,
  timezone: z.string().optional(),
});

export const httpRequestDataSchema = stepData({
  request: z.looseObject({
    method: z.string().superRefine((method, ctx) => {
      if ((HTTP_METHODS as readonly string[]).includes(method.toUpperCase())) return;
      ctx.addIssue({
        code: 'custom',
        message: `has the method "${method}", which is not one of ${HTTP_METHODS.join(', ')}`,
      });
    }),
    url: text,
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
  }),
});

const addresses = z.union([text, z.array(text).min(1)]);

export const emailSendDataSchema = stepData({
  smtp: z.looseObject({
    host: text,
    // A number, or a template such as {{ secrets.SMTP_PORT }}.
    port: z.union([z.number().int().min(1).max(65535), text]),
    secure: z.boolean().optional(),
    user: z.string().optional(),
    password: z.string().optional(),
  }),
  from: text,
  to: addresses,
  cc: z.union([z.string(), z.array(z.string())]).optional(),
  subject: text,
  text: z.string().optional(),
  html: z.string().optional(),
});

export const messagePostDataSchema = stepData({
  url: text,
  text: text,
});

export const transformDataSchema = stepData({
  outputs: z.record(z.string(), z.string()).superRefine((outputs, ctx) => {
    const names = Object.keys(outputs);
    if (names.length === 0) {
      ctx.addIssue({ code: 'custom', message: 'needs at least one output (a name and the value it takes)' });
    }
    for (const name of names) {
      if (!OUTPUT_NAME.test(name)) {
        ctx.addIssue({
          code: 'custom',
          message: `has an output named "${name}": output names may only use letters, digits, "-" and "_"`,
        });
      }
    }
  }),
});

export const conditionDataSchema = stepData({
  left: text,
  op: z.enum(CONDITION_OPS),
  right: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
}).superRefine((data, ctx) => {
  if (data.op !== 'exists' && data.right === undefined) {
    ctx.addIssue({ code: 'custom', path: ['right'], message: `needs a value to compare with (${fieldLabel('condition', 'right')})` });
  }
});

export const delayDataSchema = stepData({
  for: duration(fieldLabel('delay', 'for'), true).optional(),
  until: text.optional(),
}).superRefine((data, ctx) => {
  if (data.for === undefined && data.until === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['for'],
      message: `needs a wait time (${fieldLabel('delay', 'for')}, e.g. 2h) or a moment to wait until (${fieldLabel('delay', 'until')})`,
    });
  } else if (data.for !== undefined && data.until !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['until'],
      message: `has both a wait time (${fieldLabel('delay', 'for')}) and a moment to wait until (${fieldLabel('delay', 'until')}); keep only one`,
    });
  }
});

export const stateTransitionDataSchema = stepData({
  entity: text,
  states: z.array(text).min(2),
  to: text,
  onStale: z.string().optional(),
  requires: z.string().optional(),
  requiresTimeout: duration(fieldLabel('state.transition', 'requiresTimeout'), false).optional(),
}).superRefine((data, ctx) => {
  if (new Set(data.states).size !== data.states.length) {
    ctx.addIssue({ code: 'custom', path: ['states'], message: 'lists the same state twice' });
  }
  // Templates are resolved per event, so only fixed names can be checked here.
  for (const field of ['to', 'requires'] as const) {
    const value = data[field];
    if (value === undefined || value.includes('{{') || data.states.includes(value)) continue;
    ctx.addIssue({
      code: 'custom',
      path: [field],
      message: `names the state "${value}" in ${fieldLabel('state.transition', field)}, which is not in its list of states (${data.states.join(', ')})`,
    });
  }
});

export const forEachDataSchema = stepData({
  items: text,
  // Items at once (default: 1, one after another).
  concurrency: z.number().int().min(1).max(FOR_EACH.maxConcurrency).optional(),
  // What one failed item does to the loop (default: stop).
  onItemError: z.enum(['stop', 'continue']).optional(),
  // Checked before the first item (default: 10,000).
  maxItems: z.number().int().min(1).optional(),
});

export const flowRunDataSchema = stepData({
  // The flow whose latest published version runs; checked when this flow is published.
  flowId: z.string().trim().min(1),
  // The child run's input: a template (rendered as a value) or an object whose strings are templates.
  input: z.unknown().optional(),
});

export const NODE_DATA_SCHEMAS = {
  'trigger.manual': manualTriggerDataSchema,
  'trigger.webhook': webhookTriggerDataSchema,
  'trigger.schedule': scheduleTriggerDataSchema,
  'http.request': httpRequestDataSchema,
  'email.send': emailSendDataSchema,
  'message.post': messagePostDataSchema,
  transform: transformDataSchema,
  condition: conditionDataSchema,
  delay: delayDataSchema,
  'state.transition': stateTransitionDataSchema,
  'for.each': forEachDataSchema,
  'flow.run': flowRunDataSchema,
} satisfies Record<NodeType, z.ZodType>;

/** A step's settings once its kind's schema has read them. */
export type StepData<T extends NodeType> = z.output<(typeof NODE_DATA_SCHEMAS)[T]>;
