import { followLink } from '../lib/router.ts';
import { FlowPauseControl } from '../flows/FlowPauseControl.tsx';
import { KindIcon } from './KindIcon.tsx';
import { ProveButton } from './ProveButton.tsx';
import { TestRunButtons } from './TestRunButtons.tsx';
import { liveStatusWords, type LiveStatus } from './live-status.ts';
import type { SaveState } from './useAutosave.ts';
import { dispatch, selectCanRedo, selectCanUndo, selectFlowId, selectMeta, useEditorStore } from './useEditorStore.ts';
import type { Busy } from './useFlowActions.ts';

interface EditorToolbarProps {
  save: { state: SaveState; failure: string | null; canRetry: boolean; retry(): void };
  busy: Busy;
  errorCount: number;
  warningCount: number;
  live: LiveStatus;
  /** At phone width the flow can be looked at, not changed (FlowEditor.tsx). */
  readOnly: boolean;
  onShowProblems(): void;
  onPublish(): void;
  /** A test run of the draft; against the real services only once the person confirmed them. */
  onRun(realServices: boolean): void;
  onExport(): void;
}

const SAVE_WORDS: Record<SaveState, string> = {
  saved: 'Saved',
  unsaved: 'Unsaved changes',
  saving: 'Saving…',
  failed: 'Not saved',
  invalid: 'Sample input not saved',
};

/** The problems button says what it opens and what is in it. */
function problemWords(errorCount: number, warningCount: number): string {
  if (errorCount > 0) return `Problems: ${errorCount} to fix`;
  if (warningCount > 0) return `Problems: ${warningCount} ${warningCount === 1 ? 'warning' : 'warnings'}`;
  return 'Problems: none';
}

export function EditorToolbar({ save, busy, errorCount, warningCount, live, readOnly, onShowProblems, onPublish, onRun, onExport }: EditorToolbarProps) {
  const meta = useEditorStore(selectMeta);
  const canUndo = useEditorStore(selectCanUndo);
  const canRedo = useEditorStore(selectCanRedo);
  const flowId = useEditorStore(selectFlowId);

  return (
    <div className="editor-toolbar" role="toolbar" aria-label="Flow">
      <a
        href="/"
        className="editor-toolbar__back"
        onClick={followLink('/')}
      >
        ← Flows
      </a>
      <input
        className="editor-toolbar__name"
        aria-label="Flow name"
        title={meta.name}
        value={meta.name}
        readOnly={readOnly}
        onChange={(event) => dispatch({ type: 'updateMeta', meta: { name: event.target.value }, field: 'name' })}
        onBlur={(event) => event.target.value.trim() === '' && dispatch({ type: 'updateMeta', meta: { name: 'Untitled flow' }, field: 'name' })}
      />
      <span className={`live-status live-status--${live.state}`} data-testid="editor.live-status">
        {liveStatusWords(live)}
      </span>
      {!readOnly && (
        <span className={`save-status save-status--${save.state}`} role="status" data-testid="editor.save-status" title={save.failure ?? undefined}>
          {SAVE_WORDS[save.state]}
        </span>
      )}
      {save.state === 'failed' && save.canRetry && (
        <button type="button" className="link-button" onClick={save.retry}>
          Try again
        </button>
      )}
      {/* One group, so that a toolbar too narrow for one row moves the actions to a row of their own, whole. */}
      <div className="editor-toolbar__actions">
        {flowId && <FlowPauseControl flowId={flowId} flowName={meta.name} />}
        {!readOnly && (
          <div className="button-group">
            <button type="button" className="icon-button" aria-label="Undo" title="Undo (Ctrl+Z)" disabled={!canUndo} onClick={() => dispatch({ type: 'undo' })}>
              <KindIcon kind="undo" size={16} />
            </button>
            <button type="button" className="icon-button" aria-label="Redo" title="Redo (Ctrl+Shift+Z)" disabled={!canRedo} onClick={() => dispatch({ type: 'redo' })}>
              <KindIcon kind="redo" size={16} />
            </button>
          </div>
        )}
        <button
          type="button"
          className={`problems-button${errorCount > 0 ? ' has-errors' : warningCount > 0 ? ' has-warnings' : ''}`}
          onClick={onShowProblems}
          data-testid="editor.problems"
        >
          {errorCount > 0 && <KindIcon kind="problem" size={14} />} {problemWords(errorCount, warningCount)}
        </button>
        <button type="button" className="button-secondary" onClick={onExport} disabled={busy !== null}>
          Export
        </button>
        {!readOnly && (
          <>
            <button type="button" className="button-secondary" onClick={onPublish} disabled={busy !== null}>
              {busy === 'publish' ? 'Publishing…' : 'Publish'}
            </button>
            {flowId && <ProveButton flowId={flowId} busy={busy} />}
            {flowId && <TestRunButtons flowId={flowId} busy={busy} onRun={onRun} />}
          </>
        )}
      </div>
    </div>
  );
}
