/**
 * The fields a template can use, as people see them in the field picker: the flow's
 * sample input (which stands for `trigger.body`) as a tree, the outputs of earlier
 * steps where they are known, and key suggestions built from identifying fields.
 */
import { formatPath } from '../../core/templates/parse.ts';
import { renderValue } from '../../core/templates/render.ts';
import type { StepEdge, StepNode } from './editor-changes.ts';

export interface FieldEntry {
  /** Segments below its root (`trigger.body`, or `item` inside a loop), e.g. ['order', 'id']. */
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

const TRIGGER_BODY = ['trigger', 'body'];

export function sampleFieldTree(sample: unknown, depth = 0, parent: string[] = [], root: readonly string[] = TRIGGER_BODY): FieldEntry[] {
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
      // The sample's fields are named as in the sample; others (an item's) with their root.
      name: formatPath(root === TRIGGER_BODY ? path : [...root, ...path]),
      placeholder: placeholderFor(root, path),
      ...(isLeaf ? { preview: previewOf(value) } : {}),
      children: isLeaf ? [] : sampleFieldTree(value, depth + 1, path, root),
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

/**
 * The list a loop's Items template names, as the sample gives it; undefined when the
 * sample has no list there (it comes from an earlier step, or the sample lacks it).
 */
export function loopList(itemsTemplate: unknown, sample: unknown): unknown[] | undefined {
  if (typeof itemsTemplate !== 'string' || itemsTemplate.trim() === '') return undefined;
  try {
    const list = renderValue(itemsTemplate, { trigger: { body: sample, headers: {} }, steps: {} });
    return Array.isArray(list) ? list : undefined;
  } catch {
    // Not renderable from the sample alone (a step's output, a typo): nothing to show.
    return undefined;
  }
}

/**
 * What a step inside a loop can use: the group `item` (its fields, `item.<field>`, from the
 * list's first entry) and the group `loop` with `loop.index`.
 */
export function loopFieldTree(list: readonly unknown[] | undefined): FieldEntry[] {
  const loop: FieldEntry = {
    path: [],
    name: 'loop',
    placeholder: placeholderFor(['loop'], []),
    children: [{ path: ['index'], name: 'loop.index', placeholder: placeholderFor(['loop'], ['index']), preview: '1, 2, 3…', children: [] }],
  };
  const first = list?.[0];
  if (list === undefined || list.length === 0) return [loop];
  if (first === null || typeof first !== 'object') {
    return [{ path: [], name: 'item', placeholder: placeholderFor(['item'], []), preview: previewOf(first), children: [] }, loop];
  }
  return [{ path: [], name: 'item', placeholder: placeholderFor(['item'], []), children: sampleFieldTree(first, 0, [], ['item']) }, loop];
}

/** The lists in a sample, for choosing what a loop goes through: `{{ trigger.body.leads }}`. */
export function sampleLists(sample: unknown, depth = 0, parent: string[] = []): Array<{ name: string; placeholder: string; count: number }> {
  if (sample === null || typeof sample !== 'object' || Array.isArray(sample) || depth >= MAX_DEPTH) return [];
  return Object.entries(sample).flatMap(([key, value]) => {
    const path = [...parent, key];
    if (Array.isArray(value)) return [{ name: formatPath(path), placeholder: placeholderFor(TRIGGER_BODY, path), count: value.length }];
    return sampleLists(value, depth + 1, path);
  });
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
  // Inside a loop, what ran before the loop came first too.
  const parentId = nodes.find((node) => node.id === nodeId)?.parentId;
  if (parentId !== undefined) for (const step of stepsBefore(nodes, edges, parentId)) seen.add(step.id);
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

const IDENTIFYING = /^(id|.*[_-]id|.*[a-z]Id|number|.*Number|reference|ref|uuid|email|sku)$/;

/**
 * Key templates built from the sample's identifying fields, most specific first: a
 * nested `order.id` names the thing the step acts on, while a top-level `id` is
 * usually the event's id (the same order can arrive in two different events).
 */
export function suggestKeys(sample: unknown, stepLabel: string, limit = 3): string[] {
  return suggestKeysFrom(sampleFieldTree(sample), stepLabel, limit);
}

/**
 * The same from any field tree: inside a loop, the item's fields (`{{ item.id }}:welcome`),
 * so that each item gets its own key.
 */
export function suggestKeysFrom(tree: readonly FieldEntry[], stepLabel: string, limit = 3): string[] {
  const candidates = leafFields(tree).filter((field) => {
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
