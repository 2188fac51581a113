/**
 * What a step was asked to do in this run: its settings with the run's own data filled
 * in, using the engine's renderer. Anything that cannot be filled in here (a secret, a
 * value from a step that has not run) is shown as written; secrets never are.
 */
import type { FlowNode } from '../../server/engine/flow/document.ts';
import { renderTemplate, type RenderContext } from '../../core/templates/render.ts';
import type { RunInfo, StepInfo } from './run-types.ts';

// Settings about how the step runs rather than what it sends.
const NOT_INPUT = new Set(['label', 'sideEffect', 'key', 'keyScope', 'keyTtl', 'retry', 'onUncertain', 'receiverKeyHeader', 'timeoutMs', 'description']);
const HIDDEN = new Set(['password', 'secret']);

/** The trigger as the engine sees it: a webhook's body and headers, or the manual input. */
export function triggerOf(run: Pick<RunInfo, 'input' | 'triggerKind' | 'eventId'>): RenderContext['trigger'] {
  const input = (run.input ?? {}) as { body?: unknown; headers?: Record<string, unknown>; receivedAt?: string };
  const envelope = run.triggerKind === 'webhook' && typeof input === 'object' && input !== null && 'body' in input;
  return {
    body: envelope ? input.body : run.input,
    headers: (envelope ? input.headers : undefined) ?? {},
    ...(run.eventId ? { eventId: run.eventId } : {}),
    ...(envelope && input.receivedAt ? { receivedAt: input.receivedAt } : {}),
  };
}

export function renderedInput(node: FlowNode, run: RunInfo, steps: readonly StepInfo[]): unknown {
  const trigger = triggerOf(run);
  const context: RenderContext = {
    trigger,
    steps: Object.fromEntries(steps.map((step) => [step.nodeId, { output: step.output }])),
    flow: { id: run.flowId, name: run.flowName ?? '', versionId: run.versionId },
    run: { id: run.id, attempt: run.attempt },
  };
  const walk = (value: unknown, name: string): unknown => {
    if (HIDDEN.has(name)) return '••••••';
    if (typeof value === 'string') return readable(fill(value, context));
    if (Array.isArray(value)) return value.map((item) => walk(item, ''));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([field, inner]) => [field, walk(inner, field)]));
    }
    return value;
  };
  return Object.fromEntries(Object.entries(node.data).filter(([field]) => !NOT_INPUT.has(field)).map(([field, value]) => [field, walk(value, field)]));
}

function fill(template: string, context: RenderContext): string {
  if (!template.includes('{{')) return template;
  try {
    return renderTemplate(template, context);
  } catch {
    return template;
  }
}

/** A JSON body is easier to read as the object it is than as one long string. */
function readable(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}
