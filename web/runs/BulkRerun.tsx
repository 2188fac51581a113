/**
 * Rerun every failed run (or every run that needs review) that the filter shows, after a
 * preview summed over all of them.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { trpc } from '../lib/trpc.ts';
import { Dialog } from './Dialog.tsx';
import { CountsLine, expiredWarning, previewVerdict } from './PreviewSummary.tsx';
import { plural, RUN_STATUS_WORDS } from './run-words.ts';
import type { VersionChoice } from './VersionChoice.tsx';
import './version-choice.css';

type BulkStatus = 'failed' | 'needs_review';

interface BulkRerunProps {
  status: BulkStatus;
  /** How many runs the list shows; with none, only the outcome of a finished rerun is shown. */
  shown: number;
  flowId?: string;
  flowName?: string;
}

export function BulkRerun({ status, shown, flowId, flowName }: BulkRerunProps) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<number | null>(null);
  const which = status === 'failed' ? 'failed runs' : 'runs that need review';
  if (shown === 0 && done === null) return null;
  return (
    <div className="bulk-bar" role="region" aria-label="Rerun many runs">
      <p>
        {done !== null
          ? `${plural(done, 'run')} started again. They appear below as they go.`
          : `Fixed the cause? Rerun all ${which}${flowName ? ` of “${flowName}”` : ''} at once. You see what will happen first.`}
      </p>
      {shown > 0 && (
        <button type="button" className="button-primary" onClick={() => { setDone(null); setOpen(true); }}>
          Rerun all {which}…
        </button>
      )}
      {open && <BulkDialog status={status} flowId={flowId} which={which} onClose={() => setOpen(false)} onDone={setDone} />}
    </div>
  );
}

function BulkDialog({ status, flowId, which, onClose, onDone }: { status: BulkStatus; flowId?: string; which: string; onClose(): void; onDone(count: number): void }) {
  const queryClient = useQueryClient();
  const [version, setVersion] = useState<VersionChoice>('latest');
  // A changed key makes work already done happen again: that needs a second click.
  const [confirming, setConfirming] = useState(false);
  const filter = { status, version, ...(flowId ? { flowId } : {}) };
  const preview = useQuery({ ...trpc.runs.bulkPreview.queryOptions(filter), staleTime: 0, gcTime: 0 });
  const rerun = useMutation(
    trpc.runs.bulkRerun.mutationOptions({
      onSuccess: async ({ rerun: count }) => {
        await queryClient.invalidateQueries({ queryKey: trpc.runs.list.queryKey() });
        onDone(count);
        onClose();
      },
    }),
  );
  const runs = preview.data?.runs ?? 0;

  return (
    <Dialog
      title={`Rerun all ${which}?`}
      onClose={onClose}
      testId="bulk-rerun.dialog"
      footer={
        <>
          <button type="button" className="button-secondary" onClick={onClose}>Cancel</button>
          <button
            type="button"
            className={confirming ? 'button-confirm' : 'button-primary'}
            disabled={!preview.data || runs === 0 || rerun.isPending}
            onClick={() => ((preview.data?.warnings ?? 0) > 0 && !confirming ? setConfirming(true) : rerun.mutate(filter))}
          >
            {rerun.isPending ? 'Starting…' : confirming ? 'Yes, act again' : `Rerun ${plural(runs, 'run')}`}
          </button>
        </>
      }
    >
      {preview.isPending && <p className="muted">Working out what each run will do…</p>}
      {preview.error && <p role="alert" className="error">The preview could not be made: {preview.error.message}</p>}
      {preview.data && runs === 0 && <p>There are no {RUN_STATUS_WORDS[status]} runs to rerun any more.</p>}
      {preview.data && runs > 0 && (
        <>
          <p className="dialog__intro">
            Each of the {plural(runs, 'run')} continues as a new attempt. Added up over all of them:
          </p>
          {(preview.data.onOlderVersion > 0 || version === 'original') && (
            <fieldset className="version-picker" data-testid="version.picker">
              <legend>Rerun on which version?</legend>
              <p className="muted">{plural(preview.data.onOlderVersion, 'run')} ran on an older version than the latest published.</p>
              <label className="version-picker__option">
                <input type="radio" name="bulk-version" checked={version === 'latest'} onChange={() => { setVersion('latest'); setConfirming(false); }} />
                <span>The latest version of the flow</span>
              </label>
              <label className="version-picker__option">
                <input type="radio" name="bulk-version" checked={version === 'original'} onChange={() => { setVersion('original'); setConfirming(false); }} />
                <span>The version each run ran</span>
              </label>
            </fieldset>
          )}
          <CountsLine counts={preview.data.counts} expired={preview.data.expired} />
          <p className="preview-verdict">{previewVerdict(preview.data.counts, runs)}</p>
          {preview.data.expired > 0 && <p className="rerun-warning" data-testid="bulk-rerun.expired">{expiredWarning(preview.data.expired)}</p>}
          {preview.data.warnings > 0 && (
            <p className="rerun-warning" role={confirming ? 'alert' : undefined}>
              {plural(preview.data.warnings, 'step')} that already acted will act again, because {preview.data.warnings === 1 ? 'its key' : 'their keys'} changed in the latest version.{confirming ? ' Click “Yes, act again” if that is what you want.' : ''}
            </p>
          )}
        </>
      )}
      {rerun.error && <p role="alert" className="error">{rerun.error.message}</p>}
    </Dialog>
  );
}
