import { lintKeyTemplate, type KeyLint } from '../templates/lint-key.ts';
import { TemplateSyntaxError } from '../../../core/templates/parse.ts';
import { MissingPathError, renderTemplate, type RenderContext } from '../../../core/templates/render.ts';
import type { FlowDocument } from './document.ts';
import { stepRef } from './problems.ts';
import { keyConfirmed, keySamples } from './key-samples.ts';

/**
 * Previews in the editor: what a template gives for the flow's sample input, which
 * stands for `trigger.body`. Everything a real run adds (headers, step outputs,
 * secrets) is absent here, so a missing value is explained, not treated as a mistake.
 */

// Fixed so that a preview looks the same every time it is shown.
const SAMPLE_RUN_ID = 'sample-run';
const SAMPLE_TIME = '2000-01-01T00:00:00.000Z';

export function buildSampleContext(doc: Pick<FlowDocument, 'name' | 'sampleInput'>): RenderContext {
  const body = doc.sampleInput ?? {};
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? body.id : undefined;
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
  doc: Pick<FlowDocument, 'name' | 'sampleInput' | 'nodes'>,
  nodeId: string,
  template?: string,
): KeyPreview {
  const node = doc.nodes.find((candidate) => candidate.id === nodeId);
  if (!node) return { error: `There is no step "${nodeId}" in this flow.`, lint: [] };
  const stored = node.data.key;
  const text = template ?? (typeof stored === 'string' ? stored : '');
  const sample = buildSampleContext(doc);
  const lint = lintKeyTemplate(text, sample, { samples: keySamples(doc), confirmed: keyConfirmed(node.data, text) });
  if (text.trim() === '') return { lint };
  try {
    return { key: renderTemplate(text, sample), lint };
  } catch (cause) {
    if (cause instanceof TemplateSyntaxError) return { error: cause.message, lint };
    if (cause instanceof MissingPathError) return { error: explainMissing(doc, cause), lint };
    throw cause;
  }
}

function explainMissing(doc: Pick<FlowDocument, 'sampleInput' | 'nodes'>, error: MissingPathError): string {
  const [root, second, ...rest] = error.segments;
  const path = `"${error.path}"`;
  if (root === 'trigger' && second === 'body') {
    if (doc.sampleInput === undefined) {
      return `This flow has no sample input yet, so ${path} cannot be shown. Add a sample input to see the key.`;
    }
    const field = rest.length > 0 ? `field "${rest.join('.')}"` : 'value';
    return `The sample input has no ${field}, so ${path} cannot be shown. Add it to the sample input to see the key.`;
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
