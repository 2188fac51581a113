import { flowDocumentSchema, type FlowDocument } from './document.ts';
import { documentIssueToProblem, type FlowProblem } from './problems.ts';
import { buildSampleContext } from './sample.ts';
import { checkGraph, type LooseEdge, type LooseFlow, type LooseNode } from './validate-graph.ts';
import { checkSamples } from './validate-samples.ts';
import { checkSettings } from './validate-settings.ts';
import { checkLoops } from './validate-loops.ts';
import { checkSteps } from './validate-steps.ts';

/**
 * Validates a flow document and reports every problem at once, so that someone fixing a
 * flow sees the whole list instead of one problem per save. Errors stop a flow from
 * being published or run; warnings are shown but allowed.
 */

export type { FlowProblem } from './problems.ts';
export { buildSampleContext, previewKey, type KeyPreview } from './sample.ts';

export interface FlowValidation {
  ok: boolean;
  /** The parsed document (defaults filled in), present whenever `ok` is true. */
  flow?: FlowDocument;
  problems: FlowProblem[];
}

export function validateFlow(input: unknown): FlowValidation {
  if (!isRecord(input)) {
    return {
      ok: false,
      problems: [
        {
          severity: 'error',
          code: 'not_a_flow',
          message: 'This is not an Onceflow flow: a flow is a group of fields with a format, a name, steps and connections.',
        },
      ],
    };
  }
  const parsed = flowDocumentSchema.safeParse(input);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => documentIssueToProblem(input, issue));
  const loose = parsed.success ? parsed.data : salvage(input);
  const sample = buildSampleContext(loose);
  problems.push(...checkGraph(loose), ...checkLoops(loose), ...checkSteps(loose, sample), ...checkSamples(loose.samples), ...checkSettings(loose.settings));

  const ok = parsed.success && !problems.some((problem) => problem.severity === 'error');
  return ok ? { ok, flow: parsed.data, problems } : { ok: false, problems };
}

/**
 * The parts of a malformed document that can still be checked: steps with an id and
 * connections with both ends, so that one bad field does not hide every other problem.
 */
function salvage(input: Record<string, unknown>): LooseFlow {
  const nodes: LooseNode[] = [];
  for (const raw of Array.isArray(input.nodes) ? input.nodes : []) {
    if (!isRecord(raw) || typeof raw.id !== 'string' || raw.id === '') continue;
    nodes.push({
      id: raw.id,
      type: typeof raw.type === 'string' ? raw.type : '',
      data: isRecord(raw.data) ? raw.data : {},
      ...(typeof raw.parentId === 'string' ? { parentId: raw.parentId } : {}),
    });
  }
  const edges: LooseEdge[] = [];
  for (const raw of Array.isArray(input.edges) ? input.edges : []) {
    if (!isRecord(raw) || typeof raw.source !== 'string' || typeof raw.target !== 'string') continue;
    edges.push({
      id: typeof raw.id === 'string' ? raw.id : '',
      source: raw.source,
      target: raw.target,
      sourceHandle: typeof raw.sourceHandle === 'string' ? raw.sourceHandle : null,
    });
  }
  const sampleInput = flowDocumentSchema.shape.sampleInput.safeParse(input.sampleInput);
  const samples = flowDocumentSchema.shape.samples.safeParse(input.samples);
  const settings = flowDocumentSchema.shape.settings.safeParse(input.settings);
  return {
    name: typeof input.name === 'string' ? input.name : '',
    ...(sampleInput.success && sampleInput.data !== undefined ? { sampleInput: sampleInput.data } : {}),
    ...(samples.success && samples.data !== undefined ? { samples: samples.data } : {}),
    ...(settings.success && settings.data !== undefined ? { settings: settings.data } : {}),
    nodes,
    edges,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
