/**
 * The editor's canvas and editing state (nodes, edges, selection, history, dirty flag).
 * The flow's server-side facts — versions, problems, triggers — stay in TanStack Query.
 */
import { create } from 'zustand';
import { applyChange, initialEditorState, isDirty, type EditorChange, type EditorState } from './editor-state.ts';
import type { StepNode } from './editor-changes.ts';

export type SelectedStep = Pick<StepNode, 'id' | 'type' | 'data'>;
import { documentFromSnapshot } from './flow-document.ts';

interface EditorStore extends EditorState {
  dispatch(change: EditorChange): void;
  /** Clears the canvas when the editor closes; the revision count goes on (editor-state.ts). */
  reset(): void;
}

export const useEditorStore = create<EditorStore>()((set) => ({
  ...initialEditorState(),
  dispatch: (change) => set((state) => applyChange(state, change)),
  reset: () => set((state) => applyChange(state, { type: 'close' })),
}));

export const dispatch = (change: EditorChange): void => useEditorStore.getState().dispatch(change);

/** The flow document as it is on the canvas right now (for saving, previews and export). */
export const currentDocument = () => documentFromSnapshot(useEditorStore.getState());

export const selectNodes = (state: EditorState) => state.nodes;
export const selectEdges = (state: EditorState) => state.edges;
export const selectMeta = (state: EditorState) => state.meta;
export const selectFlowId = (state: EditorState) => state.flowId;
export const selectRevision = (state: EditorState) => state.revision;
export const selectDirty = (state: EditorState) => isDirty(state);
export const selectCanUndo = (state: EditorState) => state.past.length > 0;
export const selectCanRedo = (state: EditorState) => state.future.length > 0;
export const selectDispatch = (state: EditorStore) => state.dispatch;

/** The one selected step, or null when none or several are selected. */
export const selectSelectedNode = (state: Pick<EditorState, 'nodes'>): StepNode | null => {
  let found: StepNode | null = null;
  for (const node of state.nodes) {
    if (!node.selected) continue;
    if (found) return null;
    found = node;
  }
  return found;
};

/** The selected step without its position, so dragging it does not re-render its settings (use with useShallow). */
export const selectSelectedStep = (state: Pick<EditorState, 'nodes'>): SelectedStep | null => {
  const node = selectSelectedNode(state);
  return node ? { id: node.id, type: node.type, data: node.data } : null;
};

export const selectSelectedId = (state: Pick<EditorState, 'nodes'>): string | null => selectSelectedNode(state)?.id ?? null;

/** Every step's settings (use with useShallow): changes when a step is added, removed or edited, not when one moves. */
export const selectStepData = (state: EditorState) => state.nodes.map((node) => node.data);

export const selectHasSelection = (state: EditorState) =>
  state.nodes.some((node) => node.selected) || state.edges.some((edge) => edge.selected);
