import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { followLink, navigate } from '../lib/router.ts';
import { CROWDED_TABLE_QUERY, useMediaQuery } from '../lib/useNarrowScreen.ts';
import { trpc } from '../lib/trpc.ts';
import { ImportButton } from './ImportButton.tsx';
import { FlowCards } from './FlowCards.tsx';
import { FlowPauseControl, usePausedFlows } from './FlowPauseControl.tsx';
import { TemplateGallery } from './TemplateGallery.tsx';
import { ProofBadge } from '../proofs/ProofBadge.tsx';
import { ChangedAt } from './ChangedAt.tsx';

export function FlowList() {
  const queryClient = useQueryClient();
  // Polled, so today's counts follow the runs without a reload.
  const flows = useQuery({ ...trpc.flows.list.queryOptions(), refetchInterval: 5000 });
  const paused = usePausedFlows();
  const [name, setName] = useState('');
  const narrow = useMediaQuery(CROWDED_TABLE_QUERY);
  const create = useMutation(
    trpc.flows.create.mutationOptions({
      onSuccess: async ({ id }) => {
        setName('');
        await queryClient.invalidateQueries({ queryKey: trpc.flows.list.queryKey() });
        navigate(`/flows/${id}`);
      },
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name: name.trim() || 'Untitled flow' });
  };

  return (
    <section aria-labelledby="flows-heading" className="list-page">
      <div className="page-head">
        <h1 id="flows-heading">Flows</h1>
        <div className="list-actions">
          <form onSubmit={submit} className="inline-form">
            <label htmlFor="new-flow-name">Name of the new flow</label>
            <input id="new-flow-name" value={name} onChange={(event) => setName(event.target.value)} placeholder="Order paid → invoice" />
            <button type="submit" disabled={create.isPending}>New flow</button>
          </form>
          <span className="list-actions__or">or</span>
          <ImportButton />
        </div>
      </div>
      {create.error && <p role="alert" className="error">{create.error.message}</p>}
      {flows.isPending && <p>Loading flows…</p>}
      {flows.error && <p role="alert" className="error">The flows could not be loaded: {flows.error.message}</p>}
      {flows.data && flows.data.length === 0 && <p className="empty">No flows yet. Create one, import a flow file, or start from a template below.</p>}
      {flows.data && flows.data.length > 0 && narrow && <FlowCards flows={flows.data} paused={paused.data} />}
      {flows.data && flows.data.length > 0 && !narrow && (
        <table className="flow-list" aria-label="Flows">
          <thead>
            <tr>
              <th>Name</th>
              <th>Version</th>
              <th>Last changed</th>
              <th className="num">Runs today</th>
              <th className="num">Failures today</th>
              <th className="num" title="Side effects that were already done and were not done again, in the last 7 days">Duplicates stopped (7 days)</th>
              <th><span className="visually-hidden">Links</span></th>
            </tr>
          </thead>
          <tbody>
            {flows.data.map((flow) => (
              <tr key={flow.id} data-testid="flow-list.row">
                <td><a href={`/flows/${flow.id}`} onClick={followLink(`/flows/${flow.id}`)}>{flow.name}</a></td>
                <td>{flow.latestVersion ? `v${flow.latestVersion}` : 'Draft'}<span className="flow-list__proof"><ProofBadge flowId={flow.id} flowName={flow.name} badge={flow.proof} /></span></td>
                <td><ChangedAt at={flow.updatedAt} /></td>
                <td className="num" data-testid="flow-list.runs-today">{flow.runsToday.toLocaleString()}</td>
                <td className={`num${flow.failuresToday > 0 ? ' is-failure' : ''}`} data-testid="flow-list.failures">{flow.failuresToday.toLocaleString()}</td>
                <td className={`num${flow.duplicatesThisWeek > 0 ? ' is-dedupe' : ''}`} data-testid="flow-list.duplicates">{flow.duplicatesThisWeek.toLocaleString()}</td>
                <td>
                  <span className="flow-list__links">
                    <a href={`/runs?flow=${flow.id}`} onClick={followLink(`/runs?flow=${flow.id}`)}>Runs<span className="visually-hidden"> of {flow.name}</span></a>
                    <a href={`/flows/${flow.id}/inbox`} onClick={followLink(`/flows/${flow.id}/inbox`)}>Inbox<span className="visually-hidden"> of {flow.name}</span></a>
                  </span>
                  {flow.latestVersion !== null && paused.data && <FlowPauseControl flowId={flow.id} flowName={flow.name} state={paused.data[flow.id] ?? null} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <TemplateGallery />
    </section>
  );
}
