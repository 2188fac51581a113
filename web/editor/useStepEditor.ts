/**
 * What an inspector form needs for the selected step: its settings, a setter by field
 * path, and the problems found in each field. Consecutive edits of one field form one
 * undo step (see editor-state.ts).
 */
import { createContext, useCallback, useContext, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { getIn, setIn } from './data-path.ts';
import type { StepData } from './editor-changes.ts';
import { knownOutputs, loopFieldTree, loopList, sampleFieldTree, stepsBefore, type FieldEntry, type StepOutputs } from './sample-fields.ts';
import { useChosenSample } from './chosen-sample.ts';
import { dispatch, selectEdges, selectStepData, useEditorStore, type SelectedStep } from './useEditorStore.ts';
import { useStepProblems, type FlowProblem } from './useStepProblems.ts';

export interface StepEditor {
  node: SelectedStep;
  data: StepData;
  get(path: string): unknown;
  text(path: string): string;
  set(path: string, value: unknown): void;
  /** Applies several fields at once, as one undo step. */
  update(change: (data: StepData) => StepData, field?: string): void;
  problems: readonly FlowProblem[];
  problemsAt(path: string): FlowProblem[];
}

export function useStepEditor(node: SelectedStep): StepEditor {
  const problems = useStepProblems(node.id);
  const update = useCallback(
    (change: (data: StepData) => StepData, field?: string) => {
      // Read the latest data, so two quick edits never overwrite each other.
      const current = useEditorStore.getState().nodes.find((candidate) => candidate.id === node.id);
      if (!current) return;
      const data = change(current.data);
      if (data !== current.data) dispatch({ type: 'updateData', nodeId: node.id, data, ...(field ? { field } : {}) });
    },
    [node.id],
  );
  return useMemo(
    () => ({
      node,
      data: node.data,
      get: (path) => getIn(node.data, path),
      text: (path) => {
        const value = getIn(node.data, path);
        return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
      },
      set: (path, value) => update((data) => setIn(data, path, value), path),
      update,
      problems,
      problemsAt: (path) => problems.filter((problem) => problem.field === path || problem.field?.startsWith(`${path}.`) || problem.field?.startsWith(`${path}[`)),
    }),
    [node, problems, update],
  );
}

/** The fields a template in this step can use: the chosen sample and earlier steps' outputs. */
export interface PickerFields {
  sample: FieldEntry[];
  hasSample: boolean;
  outputs: StepOutputs[];
  /** Inside a loop: the current item's fields (from the sample's list) and `loop.index`; null elsewhere. */
  loop: FieldEntry[] | null;
  /** Inside a loop: whether the sample holds the list the loop goes through. */
  loopListKnown: boolean;
}

/** The step whose fields are being edited, for the field pickers inside its form. */
export const PickerStepContext = createContext<string | null>(null);

/**
 * Computed where a picker is shown, not for every inspector render; it follows step
 * settings and connections but not positions, so dragging a step costs nothing here.
 */
export function usePickerFields(): PickerFields {
  const nodeId = useContext(PickerStepContext);
  const { input: sampleInput } = useChosenSample();
  const settings = useEditorStore(useShallow(selectStepData));
  const edges = useEditorStore(selectEdges);
  const sample = useMemo(() => sampleFieldTree(sampleInput), [sampleInput]);
  const outputs = useMemo(() => {
    if (nodeId === null) return [];
    // `settings` changes exactly when the steps' settings do; the nodes themselves are read fresh.
    void settings;
    return knownOutputs(stepsBefore(useEditorStore.getState().nodes, edges, nodeId));
  }, [settings, edges, nodeId]);
  const loop = useLoopFields();
  return useMemo(
    () => ({ sample, hasSample: sampleInput !== undefined, outputs, loop: loop?.fields ?? null, loopListKnown: loop?.known ?? false }),
    [sample, sampleInput, outputs, loop],
  );
}

/**
 * Inside a loop, what its steps can use of the current item (`item.<field>` from the
 * first entry of the sample's list, and `loop.index`); null for a step not in a loop.
 */
export function useLoopFields(): { fields: FieldEntry[]; known: boolean } | null {
  const nodeId = useContext(PickerStepContext);
  const { input: sampleInput } = useChosenSample();
  const parentId = useEditorStore((state) => (nodeId === null ? undefined : state.nodes.find((node) => node.id === nodeId)?.parentId));
  // The loop's list, read only when the loop's settings change.
  const items = useEditorStore((state) => (parentId === undefined ? undefined : state.nodes.find((node) => node.id === parentId)?.data.items));
  return useMemo(() => {
    if (parentId === undefined) return null;
    const list = loopList(items, sampleInput);
    return { fields: loopFieldTree(list), known: list !== undefined };
  }, [parentId, items, sampleInput]);
}
