/**
 * Replay with changes: the run's input (the trigger's body) in a JSON box, checked as it is
 * typed with the line and column of the first mistake, and a preview of the keys the edited
 * input renders and whether each was already done — before anything is sent.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useDeferredValue, useId, useState } from 'react';
import { findJsonMistake } from '../editor/sample-json.ts';
import { navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import { Dialog } from './Dialog.tsx';
import { CountsLine, PreviewSteps } from './PreviewSummary.tsx';
import { VersionPicker, type VersionChoice } from './VersionChoice.tsx';

interface ReplayRun {
  id: string;
  seq: number;
  input?: unknown;
  triggerKind: string;
}

/** The trigger's body: a webhook run's input is the delivery envelope ({ body, headers, receivedAt }). */
export function triggerBody(run: Pick<ReplayRun, 'input' | 'triggerKind'>): unknown {
  const input = run.input as { body?: unknown } | null;
  return run.triggerKind === 'webhook' && typeof input === 'object' && input !== null && 'body' in input ? input.body : run.input;
}

/** `deliveryId`: opened from the Inbox, so the replay is sent as that delivery's (the preview is the same: its run). */
export function ReplayChangesDialog({ run, deliveryId, title, onClose }: { run: ReplayRun; deliveryId?: string; title?: string; onClose(): void }) {
  const fieldId = useId();
  const [text, setText] = useState(() => JSON.stringify(triggerBody(run) ?? {}, null, 2));
  const [version, setVersion] = useState<VersionChoice>('latest');
  const deferred = useDeferredValue(text);
  const mistake = text.trim() === '' ? { line: 1, column: 1, problem: 'the input is empty; write a JSON value, e.g. {}' } : findJsonMistake(text);
  const parsed = parseOrUndefined(deferred);
  const preview = useQuery({
    ...trpc.runs.replayPreview.queryOptions({ runId: run.id, version, input: parsed ?? null }),
    enabled: parsed !== undefined && !mistake,
    staleTime: 0,
    gcTime: 0,
  });
  const opened = ({ runId }: { runId: string }) => { onClose(); navigate(`/runs/${runId}`); };
  const runReplay = useMutation(trpc.runs.replay.mutationOptions({ onSuccess: opened }));
  const deliveryReplay = useMutation(trpc.events.replay.mutationOptions({ onSuccess: opened }));
  const replay = deliveryId ? deliveryReplay : runReplay;
  const send = (input: unknown) => (deliveryId ? deliveryReplay.mutate({ eventId: deliveryId, version, input }) : runReplay.mutate({ runId: run.id, version, input }));

  return (
    <Dialog
      title={title ?? `Replay run #${run.seq} with changes`}
      onClose={onClose}
      testId="replay-changes.dialog"
      footer={
        <>
          <button type="button" className="button-secondary" onClick={onClose}>Cancel</button>
          <button
            type="button"
            className="button-primary"
            disabled={Boolean(mistake) || replay.isPending}
            onClick={() => send(JSON.parse(text) as unknown)}
          >
            {replay.isPending ? 'Starting…' : 'Replay with this input'}
          </button>
        </>
      }
    >
      <p className="dialog__intro">
        A new run with the input below. Keys it renders that were already done stop as duplicates; new ones act.
      </p>
      {preview.data && <VersionPicker facts={preview.data.version} value={version} onChange={setVersion} doing="Replay" />}
      <label htmlFor={fieldId} className="replay-input__label">Input (JSON)</label>
      <textarea
        id={fieldId}
        className="replay-input"
        spellCheck={false}
        rows={8}
        value={text}
        aria-invalid={mistake ? true : undefined}
        aria-describedby={mistake ? `${fieldId}-mistake` : undefined}
        onChange={(event) => setText(event.target.value)}
      />
      {mistake && (
        <p id={`${fieldId}-mistake`} role="alert" className="error" data-testid="replay-changes.mistake">
          Line {mistake.line}, column {mistake.column}: {mistake.problem}.
        </p>
      )}
      {preview.error && <p role="alert" className="error">The preview could not be made: {preview.error.message}</p>}
      {preview.data && !mistake && (
        <>
          <CountsLine counts={preview.data.counts} expired={preview.data.expired} />
          <PreviewSteps preview={preview.data} />
        </>
      )}
      {replay.error && <p role="alert" className="error">{replay.error.message}</p>}
    </Dialog>
  );
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
