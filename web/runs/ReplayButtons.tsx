/**
 * Replay on the run page: a new run with the same input. When a newer version is published
 * than the one the run used, two buttons, one click either way: on the latest (first, the
 * usual fix) or on the version it ran.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import './version-choice.css';
import { ReplayChangesDialog } from './ReplayChangesDialog.tsx';
import type { VersionChoice } from './VersionChoice.tsx';

const TITLE = 'Starts a new run with the same input. Work that was already done is stopped as a duplicate.';

interface ReplayRun {
  id: string;
  seq: number;
  input?: unknown;
  triggerKind: string;
}

export function ReplayButtons({ run, onError }: { run: ReplayRun; onError(message: string | null): void }) {
  const runId = run.id;
  const [editing, setEditing] = useState(false);
  const facts = useQuery(trpc.runs.versionChoice.queryOptions({ runId }));
  const replay = useMutation(trpc.runs.replay.mutationOptions({
    onSuccess: ({ runId: started }) => navigate(`/runs/${started}`),
    onError: (error) => onError(error.message),
  }));
  const start = (version?: VersionChoice) => {
    onError(null);
    replay.mutate({ runId, version });
  };
  const busy = replay.isPending;
  const withChanges = (
    <>
      <button type="button" className="button-secondary" onClick={() => setEditing(true)} title="Edit the input first and see which keys it renders.">
        Replay with changes…
      </button>
      {editing && <ReplayChangesDialog run={run} onClose={() => setEditing(false)} />}
    </>
  );
  if (!facts.data?.newerExists || facts.data.latest === null) {
    return (
      <span className="replay-choice" role="group" aria-label="Replay">
        <button type="button" className="button-secondary" disabled={busy} onClick={() => start()} title={TITLE}>
          {busy ? 'Starting…' : 'Replay'}
        </button>
        {withChanges}
      </span>
    );
  }
  const ran = facts.data.ran === null ? 'the version it ran' : `v${facts.data.ran}`;
  return (
    <span className="replay-choice" role="group" aria-label="Replay">
      <button type="button" className="button-secondary" disabled={busy} onClick={() => start('latest')} title={`${TITLE} Uses the latest version, v${facts.data.latest}.`}>
        Replay on v{facts.data.latest}
      </button>
      <button type="button" className="button-secondary" disabled={busy} onClick={() => start('original')} title={`${TITLE} Uses the version this run ran, ${ran}.`}>
        Replay on {ran}
      </button>
      {withChanges}
    </span>
  );
}
