/**
 * The editor's *Prove it*: saves the draft, starts a proof of it on the chosen sample (in
 * test mode against the stand-ins) and opens the report. Beside Publish it says when the draft has
 * changed since its last passed proof, so a flow is not published on an old proof.
 */
import '../proofs/proofs.css';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { followLink, navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import { proofPath } from '../proofs/proof-words.ts';
import { chosenSampleNow, isDefaultSample } from './chosen-sample.ts';
import { saveCanvas } from './draft-saves.ts';
import { useSavingDraft } from './useAutosave.ts';
import { useEditorStore } from './useEditorStore.ts';
import type { Busy } from './useFlowActions.ts';

/** "Changed since the last proof", linking the proof it means; nothing when the draft is proven or never was. */
export function ChangedSinceProof({ flowId }: { flowId: string }) {
  const saving = useSavingDraft(flowId);
  const status = useQuery({ ...trpc.proofs.status.queryOptions({ flowId }), refetchInterval: 10_000 });
  const { refetch } = status;
  // Each saved draft may have changed what the last proof proved.
  useEffect(() => {
    if (!saving) void refetch();
  }, [saving, refetch]);
  if (!status.data?.changedSinceProof || !status.data.latest) return null;
  const path = proofPath(flowId, status.data.latest.id);
  return (
    <a
      className="proof-note"
      href={path}
      data-testid="editor.changed-since-proof"
      title="The draft is not what the last passed proof checked; press Prove it again before publishing"
      onClick={followLink(path)}
    >
      Changed since the last proof
    </a>
  );
}

export function ProveButton({ flowId, busy }: { flowId: string; busy: Busy }) {
  const [failure, setFailure] = useState<string | null>(null);
  const start = useMutation(trpc.proofs.start.mutationOptions());
  const prove = async () => {
    setFailure(null);
    try {
      // The proof is of the draft the server has, so it first gets the canvas as it is.
      await saveCanvas(useEditorStore.getState());
      // On the sample the editor is using, as Run does.
      const sample = chosenSampleNow();
      const { proofId } = await start.mutateAsync({ flowId, ...(isDefaultSample(sample) ? {} : { sample: sample.name }) });
      navigate(proofPath(flowId, proofId));
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  // One column, so the crowded toolbar gains no width: the button, and under it the note.
  return (
    <span className="prove-it">
      <button
        type="button"
        className="button-secondary"
        onClick={() => void prove()}
        disabled={busy !== null || start.isPending}
        title="Checks, against the stand-ins, that every step acts once: twice in a row, ten at once, stopped hard, a webhook sent again, and the keys"
        data-testid="editor.prove"
      >
        {start.isPending ? 'Proving…' : 'Prove it'}
      </button>
      <ChangedSinceProof flowId={flowId} />
      {failure && <span className="proof-start-error" role="alert">Could not prove it: {failure}</span>}
    </span>
  );
}
