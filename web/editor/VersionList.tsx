import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { trpc, trpcClient } from '../lib/trpc.ts';
import { proofDay } from '../proofs/proof-words.ts';
import { downloadDocument } from './download.ts';
import { dateFormat } from '../lib/date-format.ts';

export interface VersionSummary {
  id: string;
  version: number;
  createdAt: number;
  createdBy: string;
  /** Set when publishing this version changed keys and someone confirmed it. */
  keyChanges?: { confirmedBy: string; steps: Array<{ label: string; changed: number }> } | null;
}

const formatDateTime = dateFormat({ dateStyle: 'medium', timeStyle: 'short' });

function keyChangeWords(steps: Array<{ label: string; changed: number }>): string {
  return steps.map((step) => `${step.label} (${step.changed === 1 ? '1 past event' : `${step.changed} past events`} with new keys)`).join(', ');
}

/** Published versions, newest first, with who published them and when. */
export function VersionList({ flowId, versions }: { flowId: string; versions: readonly VersionSummary[] }) {
  const [failure, setFailure] = useState<string | null>(null);
  const sorted = [...versions].sort((a, b) => b.version - a.version);
  // A version is proven when a passed proof checked a draft exactly like it (Prove it).
  const proofs = useQuery(trpc.proofs.status.queryOptions({ flowId }));
  const provenAt = new Map((proofs.data?.versions ?? []).map((version) => [version.version, version.provenAt]));
  const exportVersion = async (version: number) => {
    try {
      setFailure(null);
      downloadDocument(await trpcClient.flows.export.query({ id: flowId, version }), `-v${version}`);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <div className="versions">
      <h2 className="panel-title">Versions</h2>
      <p className="field__hint">Publishing keeps an unchangeable copy of the flow. Runs always use the version that was newest when they started.</p>
      {sorted.length === 0 && <p className="empty">Not published yet. Press Publish when the flow is ready.</p>}
      <ol className="version-list" aria-label="Published versions">
        {sorted.map((version, index) => (
          <li key={version.id} className="version-list__item" data-testid="versions.item">
            <div>
              <strong>Version {version.version}</strong>
              {index === 0 && <span className="badge badge--live">Live</span>}
              {provenAt.get(version.version) != null && <span className="badge badge--live" data-testid="versions.proven">Proven on {proofDay(provenAt.get(version.version)!)}</span>}
              <div className="muted">
                Published by {version.createdBy} · {formatDateTime(version.createdAt)}
              </div>
              {version.keyChanges && (
                <div className="version-list__key-change" data-testid="versions.key-change">
                  Key change confirmed by {version.keyChanges.confirmedBy}: {keyChangeWords(version.keyChanges.steps)}
                </div>
              )}
            </div>
            <button type="button" className="button-secondary small" onClick={() => void exportVersion(version.version)} aria-label={`Export version ${version.version}`}>
              Export
            </button>
          </li>
        ))}
      </ol>
      {failure && <p className="error" role="alert">{failure}</p>}
    </div>
  );
}
