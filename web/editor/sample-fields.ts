/**
 * The fields a template can use, as people see them in the field picker: the flow's
 * sample input (which stands for `trigger.body`) as a tree, the outputs of earlier
 * steps where they are known, and key suggestions built from identifying fields.
 */
import { formatPath } from '../../core/templates/parse.ts';
import type { StepEdge, StepNode } from './editor-changes.ts';

export interface FieldEntry {
  /** Segments below `trigger.body`, e.g. ['order', 'id']. */
  path: string[];
  /** The path as people read it: `order.id`. */
  name: string;
  /** The whole placeholder: `{{ trigger.body.order.id }}`. */
  placeholder: string;
  /** A short preview of the sample value (leaves only). */
  preview?: string;
  children: FieldEntry[];
}

// Deep or wide samples (a whole API response) stay readable and cheap to draw.
const MAX_DEPTH = 6;
const MAX_CHILDREN = 60;
const PREVIEW_LENGTH = 40;

export function placeholderFor(root: readonly string[], path: readonly string[]): string {
  return `{{ ${formatPath([...root, ...path])} }}`;
}

export function sampleFieldTree(sample: unknown, depth = 0, parent: string[] = []): FieldEntry[] {
  if (sample === null || typeof sample !== 'object' || depth >= MAX_DEPTH) return [];
  // Of a list, the first item stands for all of them.
  const entries: Array<[string, unknown]> = Array.isArray(sample)
    ? sample.length > 0 ? [['0', sample[0]]] : []
    : Object.entries(sample);
  return entries.slice(0, MAX_CHILDREN).map(([key, value]) => {
    const path = [...parent, key];
    const isLeaf = value === null || typeof value !== 'object';
    return {
      path,
      name: formatPath(path),
      placeholder: placeholderFor(['trigger', 'body'], path),
      ...(isLeaf ? { preview: previewOf(value) } : {}),
      children: isLeaf ? [] : sampleFieldTree(value, depth + 1, path),
    };
  });
}

/** Every leaf of the tree, in order. */
export function leafFields(tree: readonly FieldEntry[]): FieldEntry[] {
  return tree.flatMap((entry) => (entry.children.length === 0 ? [entry] : leafFields(entry.children)));
}

function previewOf(value: unknown): string {
  const text = typeof value === 'string' ? `"${value}"` : String(value);
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1)}…` : text;
}

export interface StepOutputs {
  id: string;
  label: string;
  /** Placeholders of the outputs known before a run, e.g. `{{ steps.totals.output.net }}`. */
  fields: Array<{ name: string; placeholder: string }>;
}

/** Steps that run before `nodeId` (there is a path of connections from them to it). */
export function stepsBefore(nodes: readonly StepNode[], edges: readonly StepEdge[], nodeId: string): StepNode[] {
  const into = new Map<string, string[]>();
  for (const edge of edges) into.set(edge.target, [...(into.get(edge.target) ?? []), edge.source]);
  const seen = new Set<string>();
  const stack = [...(into.get(nodeId) ?? [])];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (seen.has(id) || id === nodeId) continue;
    seen.add(id);
    stack.push(...(into.get(id) ?? []));
  }
  return nodes.filter((node) => seen.has(node.id));
}

/** Outputs are known before a run only for transforms, whose outputs are named in the flow. */
export function knownOutputs(steps: readonly StepNode[]): StepOutputs[] {
  const result: StepOutputs[] = [];
  for (const step of steps) {
    const outputs = step.data.outputs;
    if (step.type !== 'transform' || outputs === null || typeof outputs !== 'object') continue;
    const names = Object.keys(outputs).filter((name) => name !== '');
    if (names.length === 0) continue;
    result.push({
      id: step.id,
      label: typeof step.data.label === 'string' && step.data.label ? step.data.label : step.id,
      fields: names.map((name) => ({ name, placeholder: placeholderFor(['steps', step.id, 'output'], [name]) })),
    });
  }
  return result;
}

const IDENTIFYING = /^(id|.*[_-]id|.*[a-z]Id|number|.*Number|reference|ref|uuid|email)$/;

/**
 * Key templates built from the sample's identifying fields, most specific first: a
 * nested `order.id` names the thing the step acts on, while a top-level `id` is
 * usually the event's id (the same order can arrive in two different events).
 */
export function suggestKeys(sample: unknown, stepLabel: string, limit = 3): string[] {
  const candidates = leafFields(sampleFieldTree(sample)).filter((field) => {
    const last = field.path[field.path.length - 1] ?? '';
    return IDENTIFYING.test(last) && !field.path.includes('0') && field.preview !== undefined && field.preview !== 'null';
  });
  const rank = (field: FieldEntry) => {
    const last = field.path[field.path.length - 1] ?? '';
    const isId = /id$/i.test(last) ? 0 : 1;
    const topLevel = field.path.length === 1 ? 1 : 0;
    return topLevel * 10 + isId * 2 + field.path.length * 0.1;
  };
  const suffix = slug(stepLabel) || 'step';
  return [...candidates]
    .sort((a, b) => rank(a) - rank(b))
    .slice(0, limit)
    .map((field) => `${field.placeholder}:${suffix}`);
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
}
