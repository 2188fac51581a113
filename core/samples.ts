/**
 * A flow's samples (DESIGN.md §3): `sampleInput` is the default sample and always comes
 * first, so flows written before named samples keep working; `samples` adds named ones
 * ("order 4417", "refund"). Previews, Try this step, test runs and proofs all pick their
 * input here, so every one of them means the same thing by a sample's name.
 */
import { UserError } from './errors.ts';

export interface NamedSample {
  name: string;
  input: unknown;
}

/** What the default sample (`sampleInput`) is called wherever samples are listed by name. */
export const DEFAULT_SAMPLE_NAME = 'Sample input';

/** The parts of a flow document that hold its samples. */
export interface WithSamples {
  sampleInput?: unknown;
  samples?: readonly NamedSample[] | undefined;
}

/** Every sample, the default first (an empty object when the flow has none), then the named ones in order. */
export function flowSamples(doc: WithSamples): NamedSample[] {
  return [{ name: DEFAULT_SAMPLE_NAME, input: doc.sampleInput ?? {} }, ...(doc.samples ?? []).map(({ name, input }) => ({ name, input }))];
}

/**
 * The sample with this name; no name (or the default's name) is the default sample. A
 * name the flow does not have is an error that lists the names it does have.
 */
export function findSample(doc: WithSamples, name?: string | null): NamedSample {
  const all = flowSamples(doc);
  if (name === undefined || name === null || name === DEFAULT_SAMPLE_NAME) return all[0]!;
  const found = all.find((sample) => sample.name === name);
  if (found) return found;
  const names = all.map((sample) => `"${sample.name}"`).join(', ');
  throw new UserError(`This flow has no sample called "${name}". Its samples are: ${names}.`);
}

/** A name for a new sample that no other sample has: "Sample 2", "Sample 3", … */
export function newSampleName(doc: WithSamples): string {
  const taken = new Set(flowSamples(doc).map((sample) => sample.name));
  for (let n = 2; ; n++) {
    if (!taken.has(`Sample ${n}`)) return `Sample ${n}`;
  }
}

/** What is wrong with a sample's name among the others, in words; null when it is fine. */
export function sampleNameProblem(name: string, others: readonly string[]): string | null {
  const trimmed = name.trim();
  if (trimmed === '') return 'A sample needs a name.';
  if (trimmed === DEFAULT_SAMPLE_NAME) return `"${DEFAULT_SAMPLE_NAME}" is the name of the flow's first sample; give this one another name.`;
  if (others.some((other) => other.trim() === trimmed)) return `Another sample is already called "${trimmed}"; each sample needs its own name.`;
  return null;
}
