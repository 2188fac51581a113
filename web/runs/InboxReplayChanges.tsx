/**
 * "Replay with changes…" for one Inbox delivery: loads the delivery's run (its input is the
 * delivery envelope) and opens the run page's dialog, which sends the replay as the delivery's.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { trpc } from '../lib/trpc.ts';
import { ReplayChangesDialog } from './ReplayChangesDialog.tsx';

export function InboxReplayChanges({ deliveryId, runId, eventId, disabled }: { deliveryId: string; runId: string; eventId: string; disabled: boolean }) {
  const [editing, setEditing] = useState(false);
  const detail = useQuery({ ...trpc.runs.get.queryOptions({ runId }), enabled: editing });
  const run = detail.data?.run;
  return (
    <>
      <button
        type="button"
        className="button-secondary small"
        disabled={disabled}
        onClick={() => setEditing(true)}
        title="Edit the delivery's body first and see which keys it renders."
      >
        Replay with changes…
      </button>
      {editing && detail.error && <p role="alert" className="error">The delivery’s run could not be loaded: {detail.error.message}</p>}
      {editing && run && (
        <ReplayChangesDialog run={run} deliveryId={deliveryId} title={`Replay event ${eventId} with changes`} onClose={() => setEditing(false)} />
      )}
    </>
  );
}
