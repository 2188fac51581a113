/**
 * The preview before a rerun of one run: each step and what it will do, then "Rerun now".
 * When a newer version exists the person picks it (default) or the version the run ran; a
 * step that acted before and would act again because its key changed needs a second click.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { trpc } from '../lib/trpc.ts';
import { Dialog } from './Dialog.tsx';
import { CountsLine, expiredWarning, PreviewSteps, previewVerdict } from './PreviewSummary.tsx';
import { refreshRun } from './useTimeline.ts';
import { VersionPicker, type VersionChoice } from './VersionChoice.tsx';

export function RerunDialog({ runId, seq, onClose }: { runId: string; seq: number; onClose(): void }) {
  const queryClient = useQueryClient();
  const [version, setVersion] = useState<VersionChoice>('latest');
  const [confirming, setConfirming] = useState(false);
  const preview = useQuery({ ...trpc.runs.rerunPreview.queryOptions({ runId, version }), staleTime: 0, gcTime: 0 });
  const rerun = useMutation(
    trpc.runs.rerun.mutationOptions({
      onSuccess: async () => {
        // Closed first, so the focus it gives back is moved on to the new attempt's events.
        onClose();
        await Promise.all([
          refreshRun(queryClient, runId),
          queryClient.invalidateQueries({ queryKey: trpc.runs.list.queryKey() }),
        ]);
      },
    }),
  );
  const warnings = preview.data?.warnings ?? 0;
  const uses = preview.data?.version.uses;
  const choose = (choice: VersionChoice) => {
    setVersion(choice);
    setConfirming(false);
  };
  const start = () => {
    if (warnings > 0 && !confirming) setConfirming(true);
    else rerun.mutate({ runId, version });
  };

  return (
    <Dialog
      title={`Rerun run #${seq}?`}
      onClose={onClose}
      testId="rerun.dialog"
      footer={
        <>
          <button type="button" className="button-secondary" onClick={onClose}>Cancel</button>
          <button type="button" className={confirming ? 'button-confirm' : 'button-primary'} disabled={!preview.data || rerun.isPending} onClick={start}>
            {rerun.isPending ? 'Starting…' : confirming ? 'Yes, act again' : preview.data?.version.newerExists && uses !== null ? `Rerun on v${uses}` : 'Rerun now'}
          </button>
        </>
      }
    >
      <p className="dialog__intro">
        A rerun continues this run as a new attempt. Steps that finished are skipped, and work that was already done elsewhere is stopped as a duplicate, so nothing happens twice.
      </p>
      {preview.data && <VersionPicker facts={preview.data.version} value={version} onChange={choose} doing="Rerun" />}
      {preview.data?.target.switched && (
        <p className="muted">
          On another version every step runs again, matched by its id; work whose key is unchanged is stopped as a duplicate, and delays already served are not served again.
        </p>
      )}
      {preview.isPending && <p className="muted">Working out what each step will do…</p>}
      {preview.error && <p role="alert" className="error">The preview could not be made: {preview.error.message}</p>}
      {preview.data && (
        <>
          <p className="preview-verdict">{previewVerdict(preview.data.counts)}</p>
          <CountsLine counts={preview.data.counts} expired={preview.data.expired} />
          {(preview.data.expired ?? 0) > 0 && <p className="rerun-warning">{expiredWarning(preview.data.expired ?? 0)}</p>}
          <PreviewSteps preview={preview.data} />
        </>
      )}
      {confirming && (
        <p role="alert" className="rerun-warning" data-testid="rerun.confirm">
          {warnings === 1 ? 'One step that already acted will act again' : `${warnings} steps that already acted will act again`}, because {warnings === 1 ? 'its key' : 'their keys'} changed in this version. Click “Yes, act again” if that is what you want.
        </p>
      )}
      {rerun.error && <p role="alert" className="error">{rerun.error.message}</p>}
    </Dialog>
  );
}
