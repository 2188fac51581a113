/**
 * Replay on the run page: a new run with the same input. When a newer version is published
 * than the one the run used, two buttons, one click either way: on the latest (first, the
 * usual fix) or on the version it ran.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import './version-choice.css';
import type { VersionChoice } from './VersionChoice.tsx';

const TITLE = 'Starts a new run with the same input. Work that was already done is stopped as a duplicate.';

export function ReplayButtons({ runId, onError }: { runId: string; onError(message: string | null): void }) {
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
  if (!facts.data?.newerExists || facts.data.latest === null) {
    return (
      <button type="button" className="button-secondary" disabled={busy} onClick={() => start()} title={TITLE}>
        {busy ? 'Starting…' : 'Replay'}
      </button>
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
    </span>
  );
}
