import { DEFAULT_SAMPLE_NAME } from '../../../core/samples.ts';
import type { FlowProblem } from './problems.ts';

/**
 * Checks of the flow's named samples (core/samples.ts): each needs a name of its own,
 * since test runs, Try this step and proofs pick a sample by its name. Each problem names
 * the sample, or its place in the list when the name is what is missing.
 */
export function checkSamples(samples: readonly { name: string }[] | undefined): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const seen = new Set<string>([DEFAULT_SAMPLE_NAME]);
  (samples ?? []).forEach((sample, index) => {
    const name = sample.name.trim();
    const base = { severity: 'error' as const, field: `samples[${index}].name` };
    if (name === '') {
      problems.push({ ...base, code: 'sample_unnamed', message: `Named sample number ${index + 1} has no name. Give it one, such as "order 4417".` });
    } else if (name === DEFAULT_SAMPLE_NAME) {
      problems.push({ ...base, code: 'sample_name_taken', message: `A named sample is called "${name}", which is the name of the flow's first sample. Give it another name.` });
    } else if (seen.has(name)) {
      problems.push({ ...base, code: 'sample_name_taken', message: `Two samples are called "${name}". Give each sample a name of its own, so test runs and proofs know which one to use.` });
    }
    seen.add(name);
  });
  return problems;
}
