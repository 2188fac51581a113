import type { z } from 'zod';
import { fieldName } from './field-labels.ts';
import { stepLabel } from '../../../core/step-kinds.ts';

/**
 * Problems found in a flow, worded for the person who drew it: each sentence names the
 * step by its label (and id), says what is wrong and, where it helps, what to do.
 */

export interface FlowProblem {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  nodeId?: string;
  edgeId?: string;
  /** Where in the step's settings (or the document) the problem is, e.g. `request.url`. */
  field?: string;
}

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

type Named = { id: string; data?: Record<string, unknown> | undefined };

/** `Step "Create invoice" (invoice)`, or `Step "invoice"` when it has no label. */
export function stepName(node: Named): string {
  return `Step ${quotedStepLabel(node)}`;
}

/** The same, to use inside a sentence: `step "Create invoice" (invoice)`. */
export function stepRef(node: Named): string {
  return `step ${quotedStepLabel(node)}`;
}

/** `"Create invoice" (invoice)`, or `"invoice"`. */
export function quotedStepLabel(node: Named): string {
  const label = stepLabel({ id: node.id, data: node.data ?? {} }).trim();
  return label !== node.id ? `"${label}" (${node.id})` : `"${node.id}"`;
}

/** `request.headers.x-api-key`, `states[1]`. */
export function fieldPath(path: readonly PathKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** Turns one issue of a step's data schema into a sentence about that step. */
export function dataIssueToProblem(
  node: { id: string; type: string; data: Record<string, unknown> },
  issue: Issue,
): FlowProblem {
  const field = fieldPath(issue.path);
  const step = stepName(node);
  const name = fieldName(node.type, field);
  const value = valueAt(node.data, issue.path);
  const base = { severity: 'error' as const, nodeId: node.id, field };
  const isEmpty = value === undefined || value === null || value === '';

  if (issue.code === 'custom') return { ...base, code: 'invalid_field', message: `${step} ${issue.message}.` };
  if (isEmpty || (issue.code === 'too_small' && issue.origin === 'array')) {
    return { ...base, code: 'missing_field', message: `${step} needs ${name}.` };
  }
  return { ...base, code: 'invalid_field', message: `${step} has a problem with ${name}: ${describeExpectation(issue)}.` };
}

/** What the issue expected, as the end of a sentence: "it should be a number". */
export function describeExpectation(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `it should be ${expectedWord(issue.expected)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `it should be ${JSON.stringify(issue.values[0])}`
        : `it should be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'number' ? `it should be at least ${String(issue.minimum)}` : 'it should not be empty';
    case 'too_big':
      return issue.origin === 'number'
        ? `it should be at most ${String(issue.maximum)}`
        : `it should have at most ${String(issue.maximum)} ${issue.origin === 'array' ? 'items' : 'characters'}`;
    case 'invalid_format':
      return 'it is not written the way it should be';
    case 'invalid_union': {
      const options = new Set<string>();
      for (const branch of issue.errors) {
        const first = branch[0];
        if (first?.code === 'invalid_type' && first.path.length === 0) options.add(expectedWord(first.expected));
      }
      return options.size > 0 ? `it should be ${[...options].join(' or ')}` : 'it is not in a form this step understands';
    }
    default:
      return 'it is not in a form this step understands';
  }
}

function expectedWord(expected: string): string {
  switch (expected) {
    case 'string':
      return 'text';
    case 'number':
      return 'a number';
    case 'int':
      return 'a whole number';
    case 'boolean':
      return 'yes or no (true or false)';
    case 'array':
      return 'a list';
    case 'object':
    case 'record':
      return 'a group of fields';
    case 'null':
      return 'empty (null)';
    default:
      return expected;
  }
}

/**
 * Turns one issue of the document schema into a sentence. `input` is the raw document,
 * used to name steps and connections by their ids even when other fields are wrong.
 */
export function documentIssueToProblem(input: unknown, issue: Issue): FlowProblem {
  const [top, index, ...rest] = issue.path;
  const value = valueAt(input, issue.path);
  const missing = value === undefined;
  const base = { severity: 'error' as const, code: 'document_shape' };

  if (top === 'format') {
    return missing
      ? { ...base, code: 'format_missing', field: 'format', message: 'This is not an Onceflow flow: it has no "format". An Onceflow flow says "format": "onceflow/v1".' }
      : { ...base, code: 'format_unsupported', field: 'format', message: `This flow has the format ${JSON.stringify(value)}, but Onceflow reads "onceflow/v1". Export the flow again from Onceflow, or correct the format.` };
  }
  if (top === 'name') return { ...base, field: 'name', message: 'The flow needs a name.' };
  if (top === 'description') return { ...base, field: 'description', message: 'The flow\'s description should be text.' };
  if (top === 'sampleInput') {
    return { ...base, field: 'sampleInput', message: 'The sample input should be plain data (JSON: text, numbers, yes/no, lists and groups of fields).' };
  }
  if (top === 'samples') return sampleIssue(input, index, rest);
  if ((top === 'nodes' || top === 'edges') && typeof index !== 'number') {
    const what = top === 'nodes' ? 'steps ("nodes")' : 'connections ("edges")';
    return { ...base, field: top, message: `The flow's ${what} should be a list.` };
  }
  if (top === 'nodes' && typeof index === 'number') return nodeIssue(input, index, rest, issue, missing, value);
  if (top === 'edges' && typeof index === 'number') return edgeIssue(input, index, rest, issue, missing);
  return { ...base, field: fieldPath(issue.path), message: `The flow has a problem with "${fieldPath(issue.path)}": ${describeExpectation(issue)}.` };
}

function nodeIssue(
  input: unknown,
  index: number,
  rest: readonly PathKey[],
  issue: Issue,
  missing: boolean,
  value: unknown,
): FlowProblem {
  const raw = valueAt(input, ['nodes', index]);
  const id = valueAt(raw, ['id']);
  const hasId = typeof id === 'string' && id !== '';
  // A step whose id is the problem is named by its place, but still points at its id.
  const named = hasId && rest[0] !== 'id';
  const data = valueAt(raw, ['data']);
  const step = named
    ? stepName({ id, data: data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : undefined })
    : `Step number ${index + 1}`;
  const problem = { severity: 'error' as const, code: 'document_shape', field: fieldPath(rest), ...(hasId ? { nodeId: id } : {}) };
  switch (rest[0]) {
    case undefined:
      return { ...problem, message: `${step} is not a step (it should be a group of fields with an id and a kind).` };
    case 'id':
      return missing || value === ''
        ? { ...problem, message: `${step} has no id.` }
        : { ...problem, message: `${step} has the id ${JSON.stringify(value)}, but an id may only use letters, digits, "-" and "_".` };
    case 'type':
      return { ...problem, message: `${step} does not say what kind of step it is ("type").` };
    case 'position':
      return { ...problem, message: `${step} has a position on the canvas that is not two numbers (x and y).` };
    case 'data':
      return { ...problem, message: `${step} has settings ("data") that are not a group of fields.` };
    default:
      return { ...problem, message: `${step} has a problem with "${fieldPath(rest)}": ${describeExpectation(issue)}.` };
  }
}

function edgeIssue(input: unknown, index: number, rest: readonly PathKey[], issue: Issue, missing: boolean): FlowProblem {
  const id = valueAt(input, ['edges', index, 'id']);
  const named = typeof id === 'string' && id !== '' && rest[0] !== 'id';
  const edge = named ? `The connection "${id}"` : `Connection number ${index + 1}`;
  const problem = { severity: 'error' as const, code: 'document_shape', field: fieldPath(rest), ...(named ? { edgeId: id } : {}) };
  switch (rest[0]) {
    case undefined:
      return { ...problem, message: `${edge} is not a connection (it should be a group of fields with an id, a source and a target).` };
    case 'id':
      return { ...problem, message: `${edge} has no id.` };
    case 'source':
      return { ...problem, message: `${edge} does not say which step it starts from ("source").` };
    case 'target':
      return { ...problem, message: `${edge} does not say which step it leads to ("target").` };
    default:
      return { ...problem, message: `${edge} has a problem with "${fieldPath(rest)}"${missing ? '' : `: ${describeExpectation(issue)}`}.` };
  }
}

function sampleIssue(input: unknown, index: PathKey | undefined, rest: readonly PathKey[]): FlowProblem {
  const base = { severity: 'error' as const, code: 'document_shape', field: fieldPath(['samples', ...(index === undefined ? [] : [index]), ...rest]) };
  if (typeof index !== 'number') {
    return { ...base, message: 'The flow\'s named samples ("samples") should be a list of samples, each with a name and an input.' };
  }
  const name = valueAt(input, ['samples', index, 'name']);
  const sample = typeof name === 'string' && name.trim() !== '' ? `The sample "${name.trim()}"` : `Named sample number ${index + 1}`;
  switch (rest[0]) {
    case 'name':
      return { ...base, message: `${sample} has a name that is not text.` };
    case 'input':
      return { ...base, message: `${sample} should hold plain data as its input (JSON: text, numbers, yes/no, lists and groups of fields).` };
    default:
      return { ...base, message: `${sample} is not a sample (it should be a group of fields with a name and an input).` };
  }
}
