import { lintKeyTemplate, type KeyLint } from '../templates/lint-key.ts';
import { UserError } from '../../../core/errors.ts';
import { TemplateSyntaxError } from '../../../core/templates/parse.ts';
import { MissingPathError, renderTemplate, renderValue, type RenderContext } from '../../../core/templates/render.ts';
import type { FlowDocument } from './document.ts';
import { stepRef } from './problems.ts';
import { keyConfirmed, keySamples } from './key-samples.ts';
import { DEFAULT_SAMPLE_NAME, findSample } from './samples.ts';

/**
 * Previews in the editor: what a template gives for one of the flow's samples (the
 * default sample input unless one is named), which stands for `trigger.body`. Everything a real run adds (headers, step outputs,
 * secrets) is absent here, so a missing value is explained, not treated as a mistake.
 */

// Fixed so that a preview looks the same every time it is shown.
const SAMPLE_RUN_ID = 'sample-run';
const SAMPLE_TIME = '2000-01-01T00:00:00.000Z';

type SampleSource = Pick<FlowDocument, 'name' | 'sampleInput' | 'samples'>;

/** A missing sample name throws a UserError listing the names the flow has. */
export function buildSampleContext(doc: SampleSource, sampleName?: string): RenderContext {
  const body = findSample(doc, sampleName).input ?? {};
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).id : undefined;
  const eventId = typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  return {
    trigger: {
      body,
      headers: {},
      ...(eventId === undefined ? {} : { eventId }),
      receivedAt: SAMPLE_TIME,
    },
    steps: {},
    flow: { name: doc.name },
    secrets: {},
    run: { id: SAMPLE_RUN_ID, attempt: 1 },
    now: SAMPLE_TIME,
  };
}

export interface KeyPreview {
  key?: string;
  error?: string;
  lint: KeyLint[];
}

export function previewKey(
  doc: SampleSource & Pick<FlowDocument, 'nodes'>,
  nodeId: string,
  template?: string,
  sampleName?: string,
): KeyPreview {
  const node = doc.nodes.find((candidate) => candidate.id === nodeId);
  if (!node) return { error: `There is no step "${nodeId}" in this flow.`, lint: [] };
  const stored = node.data.key;
  const text = template ?? (typeof stored === 'string' ? stored : '');
  let sample: RenderContext;
  try {
    sample = buildSampleContext(doc, sampleName);
  } catch (cause) {
    // A sample renamed or removed in another tab: say so instead of failing the preview.
    if (cause instanceof UserError) return { error: cause.message, lint: [] };
    throw cause;
  }
  sample = withFirstItem(doc, node.parentId, sample);
  const lint = lintKeyTemplate(text, sample, { samples: keySamples(doc), confirmed: keyConfirmed(node.data, text), inLoop: node.parentId !== undefined });
  if (text.trim() === '') return { lint };
  try {
    return { key: renderTemplate(text, sample), lint };
  } catch (cause) {
    if (cause instanceof TemplateSyntaxError) return { error: cause.message, lint };
    if (cause instanceof MissingPathError) return { error: explainMissing(doc, cause, sampleName), lint };
    throw cause;
  }
}

function explainMissing(doc: Pick<FlowDocument, 'sampleInput' | 'nodes'>, error: MissingPathError, sampleName?: string): string {
  const [root, second, ...rest] = error.segments;
  const path = `"${error.path}"`;
  if (root === 'trigger' && second === 'body') {
    const named = sampleName !== undefined && sampleName !== DEFAULT_SAMPLE_NAME;
    if (!named && doc.sampleInput === undefined) {
      return `This flow has no sample input yet, so ${path} cannot be shown. Add a sample input to see the key.`;
    }
    const field = rest.length > 0 ? `field "${rest.join('.')}"` : 'value';
    const sample = named ? `the sample "${sampleName}"` : 'the sample input';
    return `${sample.charAt(0).toUpperCase()}${sample.slice(1)} has no ${field}, so ${path} cannot be shown. Add it to ${sample} to see the key.`;
  }
  if (root === 'trigger' && (second === 'headers' || second === 'eventId')) {
    return `${path} is only known when a real event arrives, so it cannot be shown here.`;
  }
  if (root === 'steps' && second !== undefined) {
    const node = doc.nodes.find((candidate) => candidate.id === second);
    return `${path} is what ${stepRef(node ?? { id: second })} gives, which is only known when the flow runs.`;
  }
  if (root === 'secrets') {
    return `${path} is a secret; secrets are never shown in previews.`;
  }
  return error.message;
}

/**
 * Inside a For each body, a preview shows the key of the sample's first item: `item` is
 * the first entry of the list the loop renders from the sample (none when it renders no list).
 */
function withFirstItem(doc: Pick<FlowDocument, 'nodes'>, parentId: string | undefined, sample: RenderContext): RenderContext {
  const loop = parentId === undefined ? undefined : doc.nodes.find((candidate) => candidate.id === parentId);
  const items = (loop?.data as { items?: unknown } | undefined)?.items;
  if (typeof items !== 'string') return sample;
  try {
    const list = renderValue(items, sample);
    return Array.isArray(list) && list.length > 0 ? { ...sample, item: list[0], loop: { index: 1, count: list.length } } : sample;
  } catch (cause) {
    if (cause instanceof MissingPathError || cause instanceof TemplateSyntaxError) return sample;
    throw cause;
  }
}
