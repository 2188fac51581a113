/** The preview before a rerun of one run: each step and what it will do, then "Rerun now". */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { trpc } from '../lib/trpc.ts';
import { Dialog } from './Dialog.tsx';
import { CountsLine, PreviewSteps, previewVerdict } from './PreviewSummary.tsx';
import { refreshRun } from './useTimeline.ts';

export function RerunDialog({ runId, seq, onClose }: { runId: string; seq: number; onClose(): void }) {
  const queryClient = useQueryClient();
  const preview = useQuery({ ...trpc.runs.rerunPreview.queryOptions({ runId }), staleTime: 0, gcTime: 0 });
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

  return (
    <Dialog
      title={`Rerun run #${seq}?`}
      onClose={onClose}
      testId="rerun.dialog"
      footer={
        <>
          <button type="button" className="button-secondary" onClick={onClose}>Cancel</button>
          <button type="button" className="button-primary" disabled={!preview.data || rerun.isPending} onClick={() => rerun.mutate({ runId })}>
            {rerun.isPending ? 'Starting…' : 'Rerun now'}
          </button>
        </>
      }
    >
      <p className="dialog__intro">
        A rerun continues this run as a new attempt. Steps that finished are skipped, and work that was already done elsewhere is stopped as a duplicate, so nothing happens twice.
      </p>
      {preview.isPending && <p className="muted">Working out what each step will do…</p>}
      {preview.error && <p role="alert" className="error">The preview could not be made: {preview.error.message}</p>}
      {preview.data && (
        <>
          <p className="preview-verdict">{previewVerdict(preview.data.counts)}</p>
          <CountsLine counts={preview.data.counts} />
          <PreviewSteps preview={preview.data} />
        </>
      )}
      {rerun.error && <p role="alert" className="error">{rerun.error.message}</p>}
    </Dialog>
  );
}
