/**
 * Which of the flow's samples the editor is using: the one the key preview, the field
 * picker, Try this step and Run all take as `trigger.body`. Kept per page (not in the
 * flow): choosing a sample changes nothing a version keeps. A name the flow no longer has
 * (deleted, or renamed in another tab) falls back to the default sample.
 */
import { create } from 'zustand';
import { DEFAULT_SAMPLE_NAME, type NamedSample } from '../../core/samples.ts';
import type { FlowMeta } from './editor-changes.ts';
import { useEditorStore } from './useEditorStore.ts';

interface Chosen {
  flowId: string | null;
  /** The chosen sample's name; null is the default sample. */
  name: string | null;
}

const useChosen = create<Chosen>(() => ({ flowId: null, name: null }));

export function chooseSample(flowId: string, name: string | null): void {
  useChosen.setState({ flowId, name: name === DEFAULT_SAMPLE_NAME ? null : name });
}

/** The sample of `meta` called `name`; the default (whose input may be absent) when there is none. */
export function sampleOf(meta: Pick<FlowMeta, 'sampleInput' | 'samples'>, name: string | null): NamedSample {
  const named = name === null ? undefined : meta.samples?.find((sample) => sample.name === name);
  return named ?? { name: DEFAULT_SAMPLE_NAME, input: meta.sampleInput };
}

const chosenName = (chosen: Chosen, flowId: string | null) => (chosen.flowId === flowId ? chosen.name : null);

/** The chosen sample of the flow on the canvas, `{ name, input }`; re-renders when it or its input changes. */
export function useChosenSample(): NamedSample {
  const flowId = useEditorStore((state) => state.flowId);
  const name = useChosen((chosen) => chosenName(chosen, flowId));
  const meta = useEditorStore((state) => state.meta);
  return sampleOf(meta, name);
}

/** The same, read once (for actions such as Run). */
export function chosenSampleNow(): NamedSample {
  const { flowId, meta } = useEditorStore.getState();
  return sampleOf(meta, chosenName(useChosen.getState(), flowId));
}

export const isDefaultSample = (sample: NamedSample) => sample.name === DEFAULT_SAMPLE_NAME;
