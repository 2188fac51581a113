/**
 * A proof's report at /flows/<flowId>/proofs/<proofId>: while it runs, which check is under
 * way; then per check whether it passed, its summary, a sentence per side-effect step and
 * the test runs it started; when it was done and on which sample.
 */
import '../runs/runs.css';
import './proofs.css';
import { useQuery } from '@tanstack/react-query';
import { dateFormat } from '../lib/date-format.ts';
import { followLink } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import { formatDuration } from '../runs/run-words.ts';
import { CHECK_ORDER, CHECK_TITLES, headline, proofPath, type ProofReport } from './proof-words.ts';

const formatDateTime = dateFormat({ dateStyle: 'medium', timeStyle: 'short' });

export function ProofReportPage({ flowId, proofId }: { flowId: string; proofId: string }) {
  // Polled while the checks run; a finished report never changes.
  const proof = useQuery({
    ...trpc.proofs.get.queryOptions({ proofId }),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 700 : false),
  });
  const report = proof.data;
  const name = report?.flowName ?? 'the flow';
  return (
    <section className="list-page proof-page" aria-labelledby="proof-heading">
      <a className="back-link" href={`/flows/${flowId}`} onClick={followLink(`/flows/${flowId}`)}>← {report ? `“${report.flowName}”` : 'The flow'}</a>
      <h1 id="proof-heading">Proof of {report ? `“${name}”` : 'a flow'}</h1>
      <p className="page-sub">
        Each side-effect step, run in test mode against the built-in stand-ins: twice in a row, ten times at once, stopped hard between acting
        and recording, a webhook sent again, and its keys checked on the samples. Nothing real is touched and no live key is used.
      </p>
      {proof.isPending && <p>Loading the report…</p>}
      {proof.error && <p role="alert" className="error">The report could not be loaded: {proof.error.message}</p>}
      {report && <Report report={report} />}
      {report && report.status !== 'running' && <EarlierProofs flowId={flowId} current={proofId} />}
    </section>
  );
}

function Report({ report }: { report: ProofReport }) {
  const done = new Set(report.checks.map((check) => check.check));
  const waiting = CHECK_ORDER.filter((check) => !done.has(check));
  return (
    <>
      <p className={`proof-headline proof-headline--${report.status}`} role="status" data-testid="proof.headline">{headline(report)}</p>
      {report.status === 'running' && (
        <progress className="proof-progress" max={report.progress.total} value={report.progress.done} aria-label="Checks done" />
      )}
      <p className="proof-meta" data-testid="proof.meta">
        On the sample “{report.sample}”, started {formatDateTime(report.createdAt)} by {report.createdBy}
        {report.finishedAt !== null && <>; done {formatDateTime(report.finishedAt)}, after {formatDuration(report.finishedAt - report.createdAt)}</>}.
      </p>
      <ol className="proof-checks" aria-label="Checks">
        {report.checks.map((check) => (
          <li key={check.check} className={`proof-check proof-check--${check.passed ? 'passed' : 'failed'}`} data-testid="proof.check" data-check={check.check}>
            <h2>
              <span className="proof-check__mark">{check.passed ? 'Passed' : 'Failed'}</span>
              {check.title}
            </h2>
            <p><Emphasised text={check.summary} /></p>
            {check.steps.length > 0 && (
              <ul className="proof-steps" aria-label={`Steps in “${check.title}”`}>
                {check.steps.map((step) => (
                  <li key={step.nodeId}>
                    <span className={`proof-steps__mark proof-steps__mark--${step.passed ? 'passed' : 'failed'}`} aria-label={step.passed ? 'Passed' : 'Failed'}>{step.passed ? '✓' : '✗'}</span>
                    <span>{step.sentence.includes(step.label) ? null : <><strong>{step.label}</strong>: </>}<Emphasised text={step.sentence} /></span>
                  </li>
                ))}
              </ul>
            )}
            {check.runIds.length > 0 && (
              <p className="proof-runs">
                <span>{check.runIds.length === 1 ? 'Its test run:' : `Its ${check.runIds.length} test runs:`}</span>
                {check.runIds.map((runId, index) => (
                  <a key={runId} href={`/runs/${runId}`} onClick={followLink(`/runs/${runId}`)}>
                    run {index + 1}<span className="visually-hidden"> of “{check.title}”</span>
                  </a>
                ))}
              </p>
            )}
          </li>
        ))}
        {report.status === 'running' && waiting.map((check) => (
          <li key={check} className="proof-check proof-check--waiting" data-testid="proof.waiting">
            <h2><span className="proof-check__mark">{report.progress.current === check ? 'Checking' : 'Waiting'}</span>{CHECK_TITLES[check]}</h2>
          </li>
        ))}
      </ol>
    </>
  );
}

/** The report's sentences name buttons as *Try again*: shown in italics, as the README does. */
function Emphasised({ text }: { text: string }) {
  return <>{text.split(/\*([^*]+)\*/).map((part, index) => (index % 2 === 1 ? <em key={index}>{part}</em> : part))}</>;
}

const formatShort = dateFormat({ dateStyle: 'medium', timeStyle: 'short' });
const STATUS_WORDS = { passed: 'passed', failed: 'failed', running: 'running' } as const;

/** The flow's other proofs, newest first, so a failure can be compared with the last pass. */
function EarlierProofs({ flowId, current }: { flowId: string; current: string }) {
  const proofs = useQuery(trpc.proofs.list.queryOptions({ flowId }));
  const others = (proofs.data ?? []).filter((proof) => proof.id !== current).slice(0, 10);
  if (others.length === 0) return null;
  return (
    <div className="proof-earlier">
      <h2>Other proofs of this flow</h2>
      <ul>
        {others.map((proof) => (
          <li key={proof.id}>
            <a href={proofPath(flowId, proof.id)} onClick={followLink(proofPath(flowId, proof.id))}>{formatShort(proof.createdAt)}</a>
            {' '}— {STATUS_WORDS[proof.status]}, on “{proof.sample}”
          </li>
        ))}
      </ul>
    </div>
  );
}
