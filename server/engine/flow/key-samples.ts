import { SAMPLE_INPUT, type NamedContext } from '../templates/weak-keys.ts';
import type { FlowDocument } from './document.ts';
import { buildSampleContext } from './sample.ts';

/**
 * The samples a key is checked against. A flow has one `sampleInput` today; named
 * samples replace this list when a flow has them. An empty sample (`{}`, `[]`, null)
 * is a flow whose sample was never filled in, so it cannot say a field is missing.
 */
export function keySamples(doc: Pick<FlowDocument, 'name' | 'sampleInput'>): NamedContext[] {
  const inputs = doc.sampleInput === undefined ? [] : [{ name: SAMPLE_INPUT, input: doc.sampleInput }];
  return inputs
    .filter((sample) => !isEmpty(sample.input))
    .map((sample) => ({ name: sample.name, context: buildSampleContext({ name: doc.name, sampleInput: sample.input }) }));
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
