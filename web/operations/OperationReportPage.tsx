/**
 * A recovery's report at /operations/<id>: what was asked, by whom and when; the summed
 * preview it started from; how far it got (live while it runs); what the runs did per
 * step; uncertain steps and who resolved them; keys that had expired; every run included.
 * Downloads as CSV (a line per run) or JSON (everything).
 */
import '../runs/runs.css';
import './operations.css';
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/trpc/router.ts';
import { counted, previewSentence } from '../../core/recovery-words.ts';
import { dateFormat } from '../lib/date-format.ts';
import { followLink } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import { OperationProgress } from '../runs/RecoverDialog.tsx';
import { RUN_STATUS_WORDS } from '../runs/run-words.ts';

const formatDateTime = dateFormat({ dateStyle: 'medium', timeStyle: 'short' });
/** Runs listed on the page; the downloads have them all. */
const RUNS_SHOWN = 200;
const FAR_FUTURE = 8e15;

export function OperationReportPage({ operationId }: { operationId: string }) {
  // Read again while the operation runs and while its runs are still going.
  const query = useQuery({
    ...trpc.operations.report.queryOptions({ operationId }),
    refetchInterval: (state) => (!state.state.data || state.state.data.operation.status === 'running' || state.state.data.totals.stillGoing > 0 ? 1000 : false),
  });
  const report = query.data;
  return (
    <section className="list-page operation-page" aria-labelledby="operation-heading">
      <a className="back-link" href="/runs" onClick={followLink('/runs')}>← Runs</a>
      <h1 id="operation-heading">{report ? report.operation.name : 'Recovery report'}</h1>
      {query.isPending && <p>Loading the report…</p>}
      {query.error && <p role="alert" className="error">The report could not be loaded: {query.error.message}</p>}
      {report && <Report report={report} operationId={operationId} />}
    </section>
  );
}

type ReportData = inferRouterOutputs<AppRouter>['operations']['report'];

function Report({ report, operationId }: { report: ReportData; operationId: string }) {
  const { operation, asked, totals } = report;
  const flowName = useQuery(trpc.flows.list.queryOptions()).data?.find((flow) => flow.id === asked.flowId)?.name;
  const window = `${asked.from > 0 ? formatDateTime(asked.from) : 'the first run'} to ${asked.to < FAR_FUTURE ? formatDateTime(asked.to) : 'the moment it started'}`;
  const what = `${asked.mode === 'rerun' ? 'Rerun' : 'Replay'} ${asked.statuses.map((status) => RUN_STATUS_WORDS[status].toLowerCase()).join(', ')} runs${asked.triggerKinds.length < 3 ? ` started by ${asked.triggerKinds.join(' or ')}` : ''}`;
  return (
    <>
      <p className="page-sub" data-testid="operation.asked">
        {what} of {asked.flowId ? `“${flowName ?? asked.flowId}”` : 'every flow'}, created from {window}, on {asked.version === 'latest' ? 'the latest version' : 'the version each run ran'}.
        Asked by <strong>{operation.createdBy}</strong> on {formatDateTime(operation.createdAt)}
        {operation.cancelledBy ? `; cancelled by ${operation.cancelledBy}` : ''}.
      </p>
      <div className="operation-actions">
        <a className="button-secondary" href={`/api/operations/${operationId}/report.csv`} download>Download CSV</a>
        <a className="button-secondary" href={`/api/operations/${operationId}/report.json`} download>Download JSON</a>
      </div>
      <OperationProgress operation={operation} />
      {report.preview && <p className="operation-preview"><strong>Preview before it started:</strong> {previewSentence(report.preview)}.</p>}

      <h2>Runs</h2>
      <ul className="operation-figures" aria-label="Runs">
        <Figure value={totals.included} label="included" />
        <Figure value={totals.queued} label={asked.mode === 'rerun' ? 'started again' : 'replayed'} />
        <Figure value={totals.passed} label="left alone" />
        <Figure value={totals.pending} label="not reached" />
        <Figure value={totals.settled} label="finished" />
        <Figure value={totals.stillGoing} label="still going" />
      </ul>
      <h2>What the steps did</h2>
      <ul className="operation-figures" aria-label="Effects">
        <Figure value={totals.acted} label="acted" tone="act" />
        <Figure value={totals.duplicates} label="duplicates stopped" tone="dedupe" />
        <Figure value={totals.skipped} label="skipped" tone="skip" />
        <Figure value={totals.uncertain} label="uncertain" tone="warn" />
      </ul>
      {report.steps.length === 0 ? <p className="muted">No step has run yet.</p> : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Effects per step (scrolls sideways on a small screen)">
          <table className="run-table operation-table" aria-label="Effects per step" data-testid="operation.steps">
            <thead>
              <tr><th scope="col">Step</th><th scope="col" className="num">Acted or ran</th><th scope="col" className="num">Duplicates stopped</th><th scope="col" className="num">Skipped</th><th scope="col" className="num">Failed</th><th scope="col" className="num">Uncertain</th></tr>
            </thead>
            <tbody>
              {report.steps.map((step) => (
                <tr key={step.nodeId} data-step={step.nodeId}>
                  <td className="operation-step">{step.label}{step.sideEffect ? '' : <span className="muted"> (changes nothing outside)</span>}</td>
                  <td className="num">{step.sideEffect ? step.acted : step.ran}</td>
                  <td className="num">{step.duplicates}</td>
                  <td className="num">{step.skipped}</td>
                  <td className="num">{step.failed}</td>
                  <td className="num">{step.uncertain}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {report.uncertain.length > 0 && (
        <>
          <h2>Uncertain steps</h2>
          <ul className="operation-list">
            {report.uncertain.map((step) => (
              <li key={`${step.runId}:${step.nodeId}`}>
                <a href={`/runs/${step.runId}`} onClick={followLink(`/runs/${step.runId}`)}>Run #{step.seq}</a>: {step.label}{step.key ? <> (key <code>{step.key}</code>)</> : null} —{' '}
                {step.resolvedBy ? `${step.decision === 'happened' ? 'recorded as done' : step.decision === 'do-it' ? 'done again' : 'skipped'} by ${step.resolvedBy}` : 'waits for a decision'}
              </li>
            ))}
          </ul>
        </>
      )}
      {report.expiredKeys.length > 0 && (
        <>
          <h2>Keys that had expired</h2>
          <ul className="operation-list">
            {report.expiredKeys.map((key) => <li key={`${key.runId}:${key.nodeId}`}><code>{key.key}</code> — {key.label}, run #{key.seq}</li>)}
          </ul>
        </>
      )}
      <h2>Runs included</h2>
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Runs included (scrolls sideways on a small screen)">
        <table className="run-table operation-table" aria-label="Runs included">
          <thead>
            <tr><th scope="col">Run</th><th scope="col">Outcome</th><th scope="col">Now</th><th scope="col" className="num">Acted</th><th scope="col" className="num">Duplicates stopped</th></tr>
          </thead>
          <tbody>
            {report.runs.slice(0, RUNS_SHOWN).map((run) => (
              <tr key={run.position}>
                <td><a href={`/runs/${run.workRunId ?? run.runId}`} onClick={followLink(`/runs/${run.workRunId ?? run.runId}`)}>#{run.workSeq ?? run.seq}</a>{run.workRunId && run.workRunId !== run.runId ? <span className="muted"> (replay of #{run.seq})</span> : null}</td>
                <td>{run.outcome === 'queued' ? (asked.mode === 'rerun' ? 'Started again' : 'Replayed') : run.outcome === 'passed' ? run.note : 'Not reached'}</td>
                <td>{run.status ? <span className={`status-pill status--${run.status}`}>{RUN_STATUS_WORDS[run.status]}</span> : '—'}</td>
                <td className="num">{run.acted}</td>
                <td className="num">{run.duplicates}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.runs.length > RUNS_SHOWN && <p className="muted">The first {RUNS_SHOWN} of {counted(report.runs.length, 'run')}; the downloads have them all.</p>}
    </>
  );
}

function Figure({ value, label, tone }: { value: number; label: string; tone?: string }) {
  return <li className={`operation-figure${tone ? ` tone--${tone}` : ''}`}><strong>{value.toLocaleString('en-US')}</strong> <span>{label}</span></li>;
}
