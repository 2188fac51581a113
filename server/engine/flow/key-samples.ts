import { SAMPLE_INPUT, type NamedContext } from '../templates/weak-keys.ts';
import type { FlowDocument } from './document.ts';
import { buildSampleContext } from './sample.ts';
import { flowSamples } from './samples.ts';

/**
 * The samples a key is checked against: the sample input and every named sample. An
 * empty sample (`{}`, `[]`, null) is one that was never filled in, so it cannot say a
 * field is missing.
 */
export function keySamples(doc: Pick<FlowDocument, 'name' | 'sampleInput' | 'samples'>): NamedContext[] {
  const inputs = flowSamples(doc).map((sample, index) => ({ name: index === 0 ? SAMPLE_INPUT : sample.name, input: sample.input }));
  return inputs
    .filter((sample) => !isEmpty(sample.input))
    .map((sample) => ({ name: sample.name, context: buildSampleContext({ name: doc.name, sampleInput: sample.input as FlowDocument['sampleInput'] }) }));
}

function isEmpty(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** The key field's problems count as confirmed only for the exact text that was confirmed. */
export function keyConfirmed(data: Record<string, unknown>, template: string): boolean {
  return typeof data.keyConfirmed === 'string' && data.keyConfirmed === template;
}
