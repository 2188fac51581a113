/**
 * The sample as typed, which may not be JSON yet. Only valid JSON reaches the flow
 * (and is saved); this keeps the text and its mistake for the page, so that switching
 * tabs does not lose it, the header does not claim "Saved" and Run does not quietly use
 * the last valid sample. One sample is typed into at a time (`slot`, its name); picking
 * another sample drops text that never became JSON.
 */
import { create } from 'zustand';
import type { JsonMistake } from './sample-json.ts';

interface SampleDraft {
  flowId: string | null;
  /** The name of the sample being typed into. */
  slot: string | null;
  /** The text as typed, or null while it shows the flow's sample as is. */
  text: string | null;
  mistake: JsonMistake | null;
}

export const useSampleDraft = create<SampleDraft>(() => ({ flowId: null, slot: null, text: null, mistake: null }));

export function typeSample(flowId: string, slot: string, text: string, mistake: JsonMistake | null): void {
  useSampleDraft.setState({ flowId, slot, text, mistake });
}

/** Forgets the typed text (the editor closed, or the text was tidied to the flow's sample). */
export function clearSampleDraft(): void {
  useSampleDraft.setState({ flowId: null, slot: null, text: null, mistake: null });
}

/** The mistake in the sample being typed for this flow, if any. */
export function sampleMistakeOf(flowId: string): JsonMistake | null {
  const draft = useSampleDraft.getState();
  return draft.flowId === flowId ? draft.mistake : null;
}

export function useSampleMistake(flowId: string): JsonMistake | null {
  return useSampleDraft((draft) => (draft.flowId === flowId ? draft.mistake : null));
}

/** "line 4, column 5" */
export const placeOf = (mistake: JsonMistake): string => `line ${mistake.line}, column ${mistake.column}`;
