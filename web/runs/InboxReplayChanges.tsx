/**
 * "Replay with changes…" for one Inbox delivery: loads the delivery's run (its input is the
 * delivery envelope) and opens the run page's dialog, which sends the replay as the delivery's.
 * The page holds which delivery is being edited, so the dialog survives the table turning
 * into cards when the screen narrows.
 */
import { useQuery } from '@tanstack/react-query';
import { trpc } from '../lib/trpc.ts';
import { ReplayChangesDialog } from './ReplayChangesDialog.tsx';

export interface EditedDelivery {
  id: string;
  runId: string;
  eventId: string;
}

export function ReplayChangesButton({ disabled, onOpen }: { disabled: boolean; onOpen(): void }) {
  return (
    <button type="button" className="button-secondary small" disabled={disabled} onClick={onOpen} title="Edit the delivery's body first and see which keys it renders.">
      Replay with changes…
    </button>
  );
}

export function InboxReplayChanges({ delivery, onClose }: { delivery: EditedDelivery; onClose(): void }) {
  const detail = useQuery(trpc.runs.get.queryOptions({ runId: delivery.runId }));
  const run = detail.data?.run;
  if (detail.error) return <p role="alert" className="error">The delivery’s run could not be loaded: {detail.error.message}</p>;
  if (!run) return null;
  return <ReplayChangesDialog run={run} deliveryId={delivery.id} title={`Replay event ${delivery.eventId} with changes`} onClose={onClose} />;
}
