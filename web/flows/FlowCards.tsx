/**
 * The flow list on a phone: one card per flow with its version, today's runs and
 * failures, the week's duplicates stopped, and its runs and inbox, instead of a table
 * wider than the screen.
 */
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/trpc/router.ts';
import { followLink } from '../lib/router.ts';
import { FlowPauseControl, type FlowPauseState } from './FlowPauseControl.tsx';
import { ProofBadge } from '../proofs/ProofBadge.tsx';
import { ChangedAt } from './ChangedAt.tsx';

type FlowRow = inferRouterOutputs<AppRouter>['flows']['list'][number];

export function FlowCards({ flows, paused }: { flows: readonly FlowRow[]; paused?: Record<string, FlowPauseState> }) {
  return (
    <ul className="cards flow-list" aria-label="Flows">
      {flows.map((flow) => (
        <li key={flow.id} className="card" data-testid="flow-list.row">
          <div className="card__head">
            <a href={`/flows/${flow.id}`} onClick={followLink(`/flows/${flow.id}`)} className="card__name">{flow.name}</a>
            <span className="badge badge--version">{flow.latestVersion ? `v${flow.latestVersion}` : 'Draft'}</span>
          </div>
          {flow.proof && <p className="card__line"><ProofBadge flowId={flow.id} flowName={flow.name} badge={flow.proof} /></p>}
          <p className="card__line card__muted">Changed <ChangedAt at={flow.updatedAt} /></p>
          <dl className="card__stats">
            <div><dt>Runs today</dt><dd data-testid="flow-list.runs-today">{flow.runsToday.toLocaleString()}</dd></div>
            <div><dt>Failures today</dt><dd className={flow.failuresToday > 0 ? 'is-failure' : undefined} data-testid="flow-list.failures">{flow.failuresToday.toLocaleString()}</dd></div>
            <div><dt>Duplicates stopped (7 days)</dt><dd className={flow.duplicatesThisWeek > 0 ? 'is-dedupe' : undefined} data-testid="flow-list.duplicates">{flow.duplicatesThisWeek.toLocaleString()}</dd></div>
          </dl>
          <div className="card__actions">
            <a href={`/runs?flow=${flow.id}`} onClick={followLink(`/runs?flow=${flow.id}`)}>Runs<span className="visually-hidden"> of {flow.name}</span></a>
            <a href={`/flows/${flow.id}/inbox`} onClick={followLink(`/flows/${flow.id}/inbox`)}>Inbox<span className="visually-hidden"> of {flow.name}</span></a>
          </div>
          {flow.latestVersion !== null && paused && <FlowPauseControl flowId={flow.id} flowName={flow.name} state={paused[flow.id] ?? null} />}
        </li>
      ))}
    </ul>
  );
}
