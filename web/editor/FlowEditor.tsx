import '@xyflow/react/dist/style.css';
import './editor.css';
import { useQuery } from '@tanstack/react-query';
import { ReactFlowProvider, useReactFlow } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { takeEarlyFlow } from '../lib/preload.ts';
import { trpc } from '../lib/trpc.ts';
import { Canvas } from './Canvas.tsx';
import { deleteSteps } from './delete-steps.ts';
import { saveCanvas } from './draft-saves.ts';
import { EditorToolbar } from './EditorToolbar.tsx';
import { Palette } from './Palette.tsx';
import { PublishKeyChangesDialog } from './PublishKeyChangesDialog.tsx';
import { LockCanvas, ReadOnlyNote } from './read-only.tsx';
// Below phone width the three columns (palette, canvas, details) no longer fit side by side.
import { useNarrowScreen } from '../lib/useNarrowScreen.ts';
import { clearSampleDraft } from './sample-draft.ts';
import { SidePanel, type PanelTab } from './SidePanel.tsx';
import { useAutosave, useSavingDraft } from './useAutosave.ts';
import { dispatch, selectFlowId, selectSelectedId, useEditorStore } from './useEditorStore.ts';
import { useFlowActions, type Notice } from './useFlowActions.ts';
import { useLiveStatus } from './useLiveStatus.ts';
import type { VersionSummary } from './VersionList.tsx';
import { groupProblemsByStep, StepProblemsContext, withoutStepName } from './useStepProblems.ts';

/** The editor of one flow, at /flows/<flowId>. */
export function FlowEditor({ flowId }: { flowId: string }) {
  // Always the server's latest draft, unless it was just fetched for this very visit.
  const [early] = useState(() => takeEarlyFlow(flowId));
  const loadedId = useEditorStore(selectFlowId);
  // A draft of this flow still on its way (from the visit just left) is waited for: the
  // server's draft is not the latest until it lands, and its answer updates the cache.
  const awaitingSave = useSavingDraft(flowId) && loadedId !== flowId;
  const flow = useQuery({ ...trpc.flows.get.queryOptions({ id: flowId }), enabled: !awaitingSave, refetchOnMount: early ? false : 'always' });

  // The canvas is filled once per visit, from the server's latest draft.
  useEffect(() => {
    if (flow.data && !flow.isFetching && !awaitingSave && loadedId !== flowId) dispatch({ type: 'load', flowId, document: flow.data.draft });
  }, [flow.data, flow.isFetching, awaitingSave, loadedId, flowId]);
  // Leaving the editor saves what the debounce has not saved yet, then clears the canvas.
  useEffect(
    () => () => {
      const state = useEditorStore.getState();
      if (state.flowId === flowId) void saveCanvas(state).catch(() => undefined);
      state.reset();
      clearSampleDraft();
    },
    [flowId],
  );

  if (flow.error) {
    return (
      <div className="editor-message" role="alert">
        <h1>This flow could not be opened</h1>
        <p>{flow.error.message}</p>
        <a href="/">Back to all flows</a>
      </div>
    );
  }
  if (!flow.data || loadedId !== flowId) return <p className="editor-message">Opening the flow…</p>;
  return (
    <ReactFlowProvider>
      <LoadedEditor flowId={flowId} data={flow.data} />
    </ReactFlowProvider>
  );
}

interface FlowData {
  problems: Parameters<typeof groupProblemsByStep>[0];
  versions: VersionSummary[];
  triggers: Array<{ hookId: string; nodeId: string }>;
}

// An imported flow with problems opens on its list of problems (ImportButton.tsx).
const openingTab = (): PanelTab => (new URLSearchParams(window.location.search).get('show') === 'problems' ? 'problems' : 'step');

function LoadedEditor({ flowId, data }: { flowId: string; data: FlowData }) {
  const save = useAutosave(flowId);
  const [tab, setTab] = useState<PanelTab>(openingTab);
  const actions = useFlowActions(flowId, save.flush, () => setTab('sample'));
  const readOnly = useNarrowScreen();
  const selectedId = useEditorStore(selectSelectedId);
  const problemsByStep = useMemo(() => groupProblemsByStep(data.problems), [data.problems]);
  const hookIds = useMemo(() => new Map(data.triggers.map((trigger) => [trigger.nodeId, trigger.hookId])), [data.triggers]);
  const errorCount = data.problems.filter((problem) => problem.severity === 'error').length;
  const latestVersion = data.versions.reduce<number | null>((max, version) => Math.max(max ?? 0, version.version), null);
  const live = useLiveStatus(flowId, latestVersion);

  // Selecting a step shows its settings.
  useEffect(() => {
    if (selectedId) setTab('step');
  }, [selectedId]);

  useEditorShortcuts(!readOnly);

  return (
    <StepProblemsContext.Provider value={problemsByStep}>
      <div className={`editor${readOnly ? ' editor--read-only' : ''}`}>
        <EditorToolbar
          save={save}
          busy={actions.busy}
          errorCount={errorCount}
          warningCount={data.problems.length - errorCount}
          live={live}
          readOnly={readOnly}
          onShowProblems={() => setTab('problems')}
          onPublish={() => void actions.publish()}
          onRun={(realServices) => void actions.run(realServices)}
          onExport={() => void actions.exportFlow()}
        />
        {readOnly && <ReadOnlyNote />}
        <div className="editor__body">
          {!readOnly && <Palette />}
          <div className="editor__canvas">
            <LockCanvas locked={readOnly} />
            <Canvas />
            {actions.notice && <NoticeBanner notice={actions.notice} onClose={actions.dismiss} />}
            {actions.keyChanges && (
              <PublishKeyChangesDialog
                summary={actions.keyChanges}
                busy={actions.busy === 'publish'}
                onConfirm={() => void actions.confirmKeyChanges()}
                onClose={actions.cancelKeyChanges}
              />
            )}
          </div>
          <SidePanel flowId={flowId} tab={tab} onTab={setTab} problems={data.problems} versions={data.versions} hookIds={hookIds} readOnly={readOnly} />
        </div>
      </div>
    </StepProblemsContext.Provider>
  );
}

function NoticeBanner({ notice, onClose }: { notice: Notice; onClose(): void }) {
  const { fitView } = useReactFlow();
  return (
    <div className={`notice notice--${notice.tone}`} role={notice.tone === 'error' ? 'alert' : 'status'} data-testid="editor.notice">
      <div>
        <strong>{notice.title}</strong>
        {notice.detail && <p>{notice.detail}</p>}
        {notice.problems && (
          <ul>
            {notice.problems.map((problem, index) => (
              <li key={index}>
                {problem.nodeId ? (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => {
                      dispatch({ type: 'selectOnly', nodeIds: [problem.nodeId as string] });
                      void fitView({ nodes: [{ id: problem.nodeId as string }], duration: 300, maxZoom: 1.1 });
                    }}
                  >
                    {problem.message}
                  </button>
                ) : (
                  withoutStepName(problem.message)
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      <button type="button" className="icon-button" aria-label="Close message" onClick={onClose}>
        ×
      </button>
    </div>
  );
}

/** Delete, undo and redo from the keyboard, except while typing in a field or when read-only. */
function useEditorShortcuts(enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (mod && key === 'z') {
        event.preventDefault();
        dispatch({ type: event.shiftKey ? 'redo' : 'undo' });
      } else if (mod && key === 'y') {
        event.preventDefault();
        dispatch({ type: 'redo' });
      } else if (!mod && (event.key === 'Delete' || event.key === 'Backspace')) {
        const { nodes, edges } = useEditorStore.getState();
        const nodeIds = nodes.filter((node) => node.selected).map((node) => node.id);
        const edgeIds = edges.filter((edge) => edge.selected).map((edge) => edge.id);
        if (nodeIds.length === 0 && edgeIds.length === 0) return;
        event.preventDefault();
        deleteSteps(nodeIds, edgeIds);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [enabled]);
}
