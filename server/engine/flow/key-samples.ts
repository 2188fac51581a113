import { SAMPLE_INPUT, type NamedContext } from '../templates/weak-keys.ts';
import type { FlowDocument } from './document.ts';
import { buildSampleContext } from './sample.ts';

/**
 * The samples a key is checked against: the sample input, then the named samples
 * (samples.ts). An empty sample (`{}`, `[]`, null) is a flow whose sample was never
 * filled in, so it cannot say a field is missing.
 */
export function keySamples(doc: Pick<FlowDocument, 'name' | 'sampleInput' | 'samples'>): NamedContext[] {
  const inputs = [
    ...(doc.sampleInput === undefined ? [] : [{ name: SAMPLE_INPUT, input: doc.sampleInput as unknown }]),
    ...(doc.samples ?? []).map((sample) => ({ name: sample.name, input: sample.input as unknown })),
  ];
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
