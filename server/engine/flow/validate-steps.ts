import { lintKeyTemplate } from '../templates/lint-key.ts';
import { TemplateSyntaxError, formatPath, templatePaths } from '../../../core/templates/parse.ts';
import type { RenderContext } from '../../../core/templates/render.ts';
import { isSideEffectStep } from './document.ts';
import { reachableFrom, type Graph } from './graph.ts';
import { withLoopEntries } from './loop-body.ts';
import { LOOP_ROOTS } from '../../../core/step-kinds.ts';
import { fieldLabel } from './field-labels.ts';
import { NODE_DATA_SCHEMAS, isNodeType } from './node-types.ts';
import { dataIssueToProblem, fieldPath, stepName, stepRef, type FlowProblem } from './problems.ts';
import type { LooseFlow, LooseNode } from './validate-graph.ts';
import type { NamedContext } from '../templates/weak-keys.ts';
import { keyConfirmed, keySamples } from './key-samples.ts';

/**
 * Checks of each step's settings: required fields per kind, template syntax and the
 * values templates refer to, and the idempotency key of side-effect steps.
 */

const CONTEXT_ROOTS: readonly string[] = ['trigger', 'steps', 'flow', 'secrets', 'run', 'now'];

// Not rendered, so free text (keyConfirmed holds the key text a person confirmed).
// (flowId names a flow, chosen from a list.)
const NOT_TEMPLATES: readonly string[] = ['label', 'description', 'keyConfirmed', 'flowId'];

export function checkSteps(flow: LooseFlow, sample: RenderContext): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const ids = new Set(flow.nodes.map((node) => node.id));
  const seen = new Set<string>();
  const samples = keySamples(flow);
  // A body step comes after its loop's earlier steps; a step after the loop does not see the body.
  const entered = withLoopEntries(flow);
  const reversed = {
    nodes: flow.nodes,
    edges: entered.edges.map((edge) => ({ ...edge, source: edge.target, target: edge.source })),
  };
  for (const node of flow.nodes) {
    // A repeated id is reported once by the graph checks; its settings are not checked twice.
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    if (isNodeType(node.type)) {
      const result = NODE_DATA_SCHEMAS[node.type].safeParse(node.data);
      if (!result.success) problems.push(...result.error.issues.map((issue) => dataIssueToProblem(node, issue)));
    }
    const before = upstreamOf(reversed, node.id);
    for (const [field, text] of templateStrings(node.data)) {
      problems.push(...checkTemplate(flow, node, field, text, ids, before));
    }
    if (node.type === 'trigger.webhook') problems.push(...checkEventId(node));
    if (isNodeType(node.type) && isSideEffectStep(node)) problems.push(...checkKey(node, sample, samples, node.parentId !== undefined));
  }
  return problems;
}

function checkTemplate(
  flow: LooseFlow,
  node: LooseNode,
  field: string,
  text: string,
  ids: ReadonlySet<string>,
  before: ReadonlySet<string>,
): FlowProblem[] {
  const step = stepName(node);
  let paths: string[][];
  try {
    paths = templatePaths(text);
  } catch (cause) {
    if (!(cause instanceof TemplateSyntaxError)) throw cause;
    return [{ severity: 'error', code: 'template_syntax', nodeId: node.id, field, message: `${step} has a mistake in ${fieldLabel(node.type, field)}: ${cause.message}` }];
  }
  const problems: FlowProblem[] = [];
  const inLoop = node.parentId !== undefined;
  for (const path of paths) {
    const [root, stepId] = path;
    const shown = `{{ ${formatPath(path)} }}`;
    const other = stepId === undefined ? undefined : flow.nodes.find((candidate) => candidate.id === stepId);
    if (root !== undefined && LOOP_ROOTS.includes(root) && !inLoop) {
      problems.push({
        severity: 'error',
        code: 'template_loop_value_outside',
        nodeId: node.id,
        field,
        message: `${step} uses ${shown} in ${fieldLabel(node.type, field)}, but "${root}" only exists inside a For each step. Move the step inside one, or take the value from the trigger or an earlier step.`,
      });
    } else if (root !== undefined && LOOP_ROOTS.includes(root)) {
      continue;
    } else if (root === undefined || !CONTEXT_ROOTS.includes(root)) {
      problems.push({
        severity: 'error',
        code: 'template_unknown_value',
        nodeId: node.id,
        field,
        message: `${step} uses ${shown} in ${fieldLabel(node.type, field)}, but there is no value called "${root ?? ''}". Values start with ${CONTEXT_ROOTS.join(', ')}.`,
      });
    } else if (root === 'steps' && stepId !== undefined && !ids.has(stepId)) {
      problems.push({
        severity: 'error',
        code: 'template_unknown_step',
        nodeId: node.id,
        field,
        message: `${step} uses ${shown} in ${fieldLabel(node.type, field)}, but the flow has no step "${stepId}".`,
      });
    } else if (root === 'steps' && other?.parentId !== undefined && other.parentId !== node.parentId) {
      const loop = flow.nodes.find((candidate) => candidate.id === other.parentId) ?? { id: other.parentId };
      problems.push({
        severity: 'warning',
        code: 'template_step_in_loop',
        nodeId: node.id,
        field,
        message: `${step} uses ${shown} in ${fieldLabel(node.type, field)}, but ${stepRef(other)} runs once per item inside ${stepRef(loop)}. After the loop, use {{ steps.${loop.id}.output }}: the list of each item's result.`,
      });
    } else if (root === 'steps' && stepId !== undefined && !before.has(stepId)) {
      problems.push({
        severity: 'warning',
        code: 'template_step_not_before',
        nodeId: node.id,
        field,
        message: `${step} uses ${shown} in ${fieldLabel(node.type, field)}, but ${stepRef(other ?? { id: stepId })} does not come before it in the flow, so that value may not exist when this step runs.`,
      });
    }
  }
  return problems;
}

function checkEventId(node: LooseNode): FlowProblem[] {
  const eventId = node.data.eventId;
  if (typeof eventId !== 'string' || eventId.trim() === '') return [];
  let paths: string[][];
  try {
    paths = templatePaths(eventId);
  } catch {
    return []; // reported as a template problem
  }
  const base = { severity: 'error' as const, nodeId: node.id, field: 'eventId' };
  const step = stepName(node);
  const problems: FlowProblem[] = [];
  if (!paths.some((path) => path[0] === 'trigger')) {
    problems.push({
      ...base,
      code: 'event_id_constant',
      message: `${step}: The event id is the same for every delivery, so after the first one every event would be ignored as a duplicate. Take it from the delivery, e.g. {{ trigger.headers.webhook-id }} or {{ trigger.body.id }}.`,
    });
  }
  if (paths.some((path) => path[0] === 'now' || path[0] === 'run' || (path[0] === 'trigger' && path[1] === 'receivedAt'))) {
    problems.push({
      ...base,
      code: 'event_id_changes',
      message: `${step}: The event id changes each time the same event is delivered again, so repeated deliveries would not be recognised. Take it from the delivery, e.g. {{ trigger.body.id }}.`,
    });
  }
  return problems;
}

function checkKey(node: LooseNode, sample: RenderContext, samples: readonly NamedContext[], inLoop: boolean): FlowProblem[] {
  const key = node.data.key;
  const step = stepName(node);
  if (key === undefined || key === null) {
    if (node.type === 'flow.run') {
      return [{
        severity: 'error', code: 'key_missing', nodeId: node.id, field: 'key',
        message: `${step}: This step starts a run of another flow, so it needs an idempotency key: a text built from the data that stays the same when the same thing happens again, e.g. order-{{ trigger.body.order.id }}. One child run is started per key, however often this flow is rerun or replayed.`,
      }];
    }
    return [
      {
        severity: 'error',
        code: 'key_missing',
        nodeId: node.id,
        field: 'key',
        message:
          `${step}: This step changes something outside Onceflow, so it needs an idempotency key: a text built from ` +
          'the data that stays the same when the same thing happens again, e.g. invoice-{{ trigger.body.order.id }}. ' +
          'If this step changes nothing outside, mark it as not changing anything.',
      },
    ];
  }
  // A key of the wrong type is a shape problem of the step's settings.
  if (typeof key !== 'string') return [];
  return lintKeyTemplate(key, sample, { samples, confirmed: keyConfirmed(node.data, key), inLoop })
    .filter((lint) => lint.code !== 'template_syntax') // already reported for the field
    .map((lint) => ({ ...lint, nodeId: node.id, field: 'key', message: `${step}: ${lint.message}` }));
}

/** Every string in a step's settings that is rendered as a template, with its field path. */
function templateStrings(data: Record<string, unknown>): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  const walk = (value: unknown, path: PropertyKey[]): void => {
    if (typeof value === 'string') {
      found.push([fieldPath(path), value]);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, [...path, index]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    }
  };
  for (const [key, value] of Object.entries(data)) {
    if (!NOT_TEMPLATES.includes(key)) walk(value, [key]);
  }
  return found;
}

/** Steps with a path of connections into `nodeId` (found on the reversed graph), so they run first. */
function upstreamOf(reversed: Graph, nodeId: string): Set<string> {
  const reached = reachableFrom(reversed, [nodeId]);
  reached.delete(nodeId);
  return reached;
}
