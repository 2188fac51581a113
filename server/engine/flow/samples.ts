/**
 * A flow's samples for the engine: the default (`sampleInput`) first, then the named ones
 * (core/samples.ts holds the rules, shared with the editor). Previews, Try this step, test
 * runs, proofs and the command line pick their input through `findSample`, whose error
 * lists the names the flow has.
 */
export { DEFAULT_SAMPLE_NAME, findSample, flowSamples, type NamedSample } from '../../../core/samples.ts';
export { checkSamples } from './validate-samples.ts';
