/**
 * A flow's webhook inbox at /flows/<flowId>/inbox: every delivery with its event id,
 * when it came, whether it started a run or was a repeat (duplicate ×N) or was refused
 * and why, the run it belongs to, and Replay (as it came, or with its body edited).
 */
import '../editor/editor.css';
import './runs.css';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { followLink, navigate } from '../lib/router.ts';
import { useNarrowScreen } from '../lib/useNarrowScreen.ts';
import { trpc } from '../lib/trpc.ts';
import { formatWhen, RUN_STATUS_WORDS } from './run-words.ts';
import type { InboxData, RunStatus } from './run-types.ts';
import { InboxReplayChanges, ReplayChangesButton, type EditedDelivery } from './InboxReplayChanges.tsx';
import { InboxVersionChoice } from './InboxVersionChoice.tsx';
import type { VersionChoice } from './VersionChoice.tsx';

type Row =
  | { kind: 'delivery'; at: number; delivery: InboxData['deliveries'][number] }
  | { kind: 'rejection'; at: number; rejection: InboxData['rejections'][number] };

export function InboxPage({ flowId }: { flowId: string }) {
  const flow = useQuery(trpc.flows.get.queryOptions({ id: flowId }));
  const inbox = useQuery({ ...trpc.events.list.queryOptions({ flowId }), refetchInterval: 2000, placeholderData: keepPreviousData });
  const replay = useMutation(trpc.events.replay.mutationOptions({ onSuccess: ({ runId }) => navigate(`/runs/${runId}`) }));
  const [version, setVersion] = useState<VersionChoice>('latest');
  const [editing, setEditing] = useState<EditedDelivery | null>(null);

  const rows = useMemo<Row[]>(() => {
    if (!inbox.data) return [];
    return [
      ...inbox.data.deliveries.map((delivery) => ({ kind: 'delivery' as const, at: delivery.receivedAt, delivery })),
      ...inbox.data.rejections.map((rejection) => ({ kind: 'rejection' as const, at: rejection.receivedAt, rejection })),
    ].sort((a, b) => b.at - a.at);
  }, [inbox.data]);

  const name = flow.data?.name ?? 'this flow';
  const narrow = useNarrowScreen();
  const hooks = inbox.data?.triggers.filter((trigger) => trigger.kind === 'trigger.webhook') ?? [];
  return (
    <section className="list-page inbox-page" aria-labelledby="inbox-heading">
      <a className="back-link" href="/" onClick={followLink('/')}>← Flows</a>
      <div className="page-head">
        <div>
          <h1 id="inbox-heading">Inbox of “{name}”</h1>
          <p className="page-sub">
            Every delivery to this flow’s webhook. The first delivery of an event starts a run; repeats of the same event are counted and ignored, so they never start a second run.
          </p>
        </div>
        <div className="list-actions">
          <a className="button-link" href={`/flows/${flowId}`} onClick={followLink(`/flows/${flowId}`)}>Open the flow</a>
          <a className="button-link" href={`/runs?flow=${flowId}`} onClick={followLink(`/runs?flow=${flowId}`)}>Runs of this flow</a>
        </div>
      </div>

      {hooks.length > 0 && (
        <div className="hook-addresses">
          <span>Webhook address{hooks.length > 1 ? 'es' : ''}:</span>
          {hooks.map((hook) => (
            <code key={hook.hookId}>{`${window.location.origin}/hooks/${hook.hookId}`}</code>
          ))}
        </div>
      )}

      {(inbox.error || flow.error) && <p role="alert" className="error">The inbox could not be loaded: {(inbox.error ?? flow.error)?.message}</p>}
      <InboxVersionChoice flowId={flowId} value={version} onChange={setVersion} />
      {replay.error && <p role="alert" className="error">{replay.error.message}</p>}
      {editing && <InboxReplayChanges delivery={editing} onClose={() => setEditing(null)} />}
      {inbox.isPending && <p className="muted">Loading deliveries…</p>}
      {inbox.data && rows.length === 0 && (
        <p className="empty-card">
          {hooks.length === 0
            ? 'This flow has no published webhook trigger, so nothing can be delivered to it yet.'
            : 'No deliveries yet. Give the webhook address to the service that should send events.'}
        </p>
      )}
      {rows.length > 0 && narrow && (
        <ul className="cards" aria-label="Deliveries">
          {rows.map((row) =>
            row.kind === 'delivery' ? (
              <li key={row.delivery.id} className="card" data-testid="inbox.row" data-status={row.delivery.duplicates > 0 ? 'duplicate' : 'accepted'}>
                <div className="card__head">
                  <code className="card__code">{row.delivery.eventId}</code>
                  <span className={`delivery-status ${row.delivery.duplicates > 0 ? 'is-duplicate' : 'is-accepted'}`}>{row.delivery.status}</span>
                </div>
                <p className="card__line card__muted">
                  Received {formatWhen(row.delivery.receivedAt)}
                  {row.delivery.lastSeenAt !== row.delivery.receivedAt && ` · last repeat ${formatWhen(row.delivery.lastSeenAt)}`}
                  {row.delivery.duplicates > 0 && ' · repeats were ignored'}
                </p>
                <div className="card__actions">
                  <a href={`/runs/${row.delivery.runId}`} onClick={followLink(`/runs/${row.delivery.runId}`)}>Open run</a>
                  <span className={`status-pill status--${row.delivery.runStatus}`}>{RUN_STATUS_WORDS[row.delivery.runStatus as RunStatus] ?? row.delivery.runStatus}</span>
                  <ReplayButton disabled={replay.isPending} onReplay={() => replay.mutate({ eventId: row.delivery.id, version })} />{' '}
                  <ReplayChangesButton disabled={replay.isPending} onOpen={() => setEditing(row.delivery)} />
                </div>
              </li>
            ) : (
              <li key={`rejection-${row.rejection.id}`} className="card" data-testid="inbox.row" data-status="rejected">
                <div className="card__head">
                  <span className="delivery-status is-rejected">rejected</span>
                  <span className="card__muted">({row.rejection.status})</span>
                </div>
                <p className="card__line cell-reason">{row.rejection.reason}</p>
                <p className="card__line card__muted">Received {formatWhen(row.rejection.receivedAt)}</p>
              </li>
            ),
          )}
        </ul>
      )}
      {rows.length > 0 && !narrow && (
        <table className="run-table inbox-table" aria-label="Deliveries">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Received</th>
              <th scope="col">Status</th>
              <th scope="col">Run</th>
              <th scope="col"><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) =>
              row.kind === 'delivery' ? (
                <tr key={row.delivery.id} data-testid="inbox.row" data-status={row.delivery.duplicates > 0 ? 'duplicate' : 'accepted'}>
                  <td><code>{row.delivery.eventId}</code></td>
                  <td>
                    {formatWhen(row.delivery.receivedAt)}
                    {row.delivery.lastSeenAt !== row.delivery.receivedAt && <span className="muted cell-note">last repeat {formatWhen(row.delivery.lastSeenAt)}</span>}
                  </td>
                  <td>
                    <span className={`delivery-status ${row.delivery.duplicates > 0 ? 'is-duplicate' : 'is-accepted'}`}>{row.delivery.status}</span>
                    {row.delivery.duplicates > 0 && <span className="muted cell-note">repeats were ignored</span>}
                  </td>
                  <td>
                    <a href={`/runs/${row.delivery.runId}`} onClick={followLink(`/runs/${row.delivery.runId}`)}>Open run</a>{' '}
                    <span className={`status-pill status--${row.delivery.runStatus}`}>{RUN_STATUS_WORDS[row.delivery.runStatus as RunStatus] ?? row.delivery.runStatus}</span>
                  </td>
                  <td className="actions-cell">
                    <ReplayButton disabled={replay.isPending} onReplay={() => replay.mutate({ eventId: row.delivery.id, version })} />{' '}
                    <ReplayChangesButton disabled={replay.isPending} onOpen={() => setEditing(row.delivery)} />
                  </td>
                </tr>
              ) : (
                <tr key={`rejection-${row.rejection.id}`} data-testid="inbox.row" data-status="rejected">
                  <td className="muted">—</td>
                  <td>{formatWhen(row.rejection.receivedAt)}</td>
                  <td colSpan={3}>
                    <span className="delivery-status is-rejected">rejected</span> <span className="cell-reason">{row.rejection.reason}</span>{' '}
                    <span className="card__muted">({row.rejection.status})</span>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ReplayButton({ disabled, onReplay }: { disabled: boolean; onReplay(): void }) {
  return (
    <button type="button" className="button-secondary small" disabled={disabled} onClick={onReplay} title="Runs this event again as a new run. Work already done is stopped as a duplicate.">
      Replay
    </button>
  );
}
