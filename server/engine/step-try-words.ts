/**
 * Why a path in a step could not be filled in when trying it, in words that say where the
 * value would come from and what to do: add the field to the sample, run the flow once
 * from the editor, or add the secret.
 */
import type { MissingPathError } from '../../core/templates/render.ts';
import type { FlowDocument } from './flow/document.ts';
import { stepRef } from './flow/problems.ts';
import type { RunRow } from './types.ts';

export interface MissingContext {
  doc: FlowDocument;
  run: RunRow | undefined;
  sampleName: string;
  /** Steps the earlier run has an output for. */
  ranSteps: ReadonlySet<string>;
}

export function explainMissingForTry(error: MissingPathError, { doc, run, sampleName, ranSteps }: MissingContext): string {
  const [root, second, third, ...rest] = error.segments;
  const path = `"${error.path}"`;
  if (root === 'trigger' && second === 'body') {
    const field = [third, ...rest].filter((part) => part !== undefined);
    const what = field.length > 0 ? `no field "${field.join('.')}"` : 'no value';
    return `the sample "${sampleName}" has ${what}, so ${path} cannot be filled in. Add it to the sample, or pick another sample.`;
  }
  if (root === 'trigger' && (second === 'headers' || second === 'eventId')) {
    return `${path} comes with a real delivery; a sample has no headers, so it cannot be filled in here.`;
  }
  if (root === 'steps' && second !== undefined) {
    const node = doc.nodes.find((candidate) => candidate.id === second);
    const step = stepRef(node ?? { id: second });
    if (!run) return `${path} is what ${step} gives, and this flow has not been run from the editor yet. Run it once, then try this step again.`;
    const last = `run #${run.seq}, the last run started from the editor`;
    if (!ranSteps.has(second)) return `${path} is what ${step} gives, but in ${last}, that step did not run. Run the flow again, then try this step again.`;
    const field = error.segments.slice(3).join('.');
    return `${path}: in ${last}, ${step} gave no ${field === '' ? 'such value' : `field "${field}"`}. Check the path in the field picker.`;
  }
  if (root === 'secrets' && second !== undefined) {
    return `there is no secret called "${second}". Add it under Secrets, or correct the name.`;
  }
  return error.message;
}
