import { useMutation } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../../server/trpc/router.ts';
import { trpc } from '../../lib/trpc.ts';
import { isDefaultSample, useChosenSample } from '../chosen-sample.ts';
import { currentDocument, type SelectedStep } from '../useEditorStore.ts';

type Tried = inferRouterOutputs<AppRouter>['steps']['try'];
type StandInTry = inferRouterOutputs<AppRouter>['steps']['sendToStandIn'];

// Steps that reach something outside Onceflow, each of which has a stand-in.
const SENDS = new Set(['http.request', 'email.send', 'message.post']);
type Header = { name: string; value: string };

/**
 * Try this step: the selected step rendered by the server against the chosen sample and
 * the outputs of the flow's last run started from the editor, exactly as a run would
 * render it — without a run, so nothing is sent and no key is claimed. The server masks
 * secret values before the answer leaves it.
 */
export function TryStep({ flowId, node }: { flowId: string; node: SelectedStep }) {
  const chosen = useChosenSample();
  const attempt = useMutation(trpc.steps.try.mutationOptions());
  const sending = useMutation(trpc.steps.sendToStandIn.mutationOptions());
  // The latest of the two answers: sending renders the step again, so it is as new as a try.
  const sent = sending.data && (!attempt.data || sending.submittedAt >= attempt.submittedAt) ? sending.data : undefined;
  const tried = sent?.tried ?? attempt.data;
  const sampleWords = isDefaultSample(chosen) ? 'the sample input' : `the sample “${chosen.name}”`;

  const input = () => ({
    flowId,
    nodeId: node.id,
    ...(isDefaultSample(chosen) ? {} : { sample: chosen.name }),
    // The canvas as it is now, saved or not.
    document: currentDocument(),
  });
  const run = () => attempt.mutate(input());
  const send = () => sending.mutate(input());
  const error = attempt.error ?? sending.error;

  return (
    <section className="try-step" aria-labelledby={`try-${node.id}`} data-testid="try-step">
      <div className="try-step__head">
        <h3 id={`try-${node.id}`}>Try this step</h3>
        <button type="button" className="button-secondary small" onClick={run} disabled={attempt.isPending} data-testid="try-step.run">
          {attempt.isPending ? 'Trying…' : tried ? 'Try again' : 'Try this step'}
        </button>
      </div>
      <p className="field__hint">
        Shows what this step would send for {sampleWords}, using what earlier steps gave in the last run started from the editor. Nothing is sent and the
        flow does not run. Secrets show as ••••••.
      </p>
      {error && (
        <p className="field-problem field-problem--error" role="alert">
          The step could not be tried: {error.message}
        </p>
      )}
      {tried && <TriedView tried={tried} />}
      {tried && SENDS.has(node.type ?? '') && tried.problems.length === 0 && (
        <div className="try-step__head">
          <p className="field__hint">Send it to the stand-in a test run would use, to see what it answers. Nothing real is reached.</p>
          <button type="button" className="button-secondary small" onClick={send} disabled={sending.isPending} data-testid="try-step.send">
            {sending.isPending ? 'Sending…' : 'Send to its stand-in'}
          </button>
        </div>
      )}
      {sent && <StandInAnswer sent={sent} />}
    </section>
  );
}

function TriedView({ tried }: { tried: Tried }) {
  const sample = tried.sample === 'Sample input' ? 'the sample input' : `the sample “${tried.sample}”`;
  return (
    <div className="try-step__result" aria-live="polite" data-testid="try-step.result">
      <p className="try-step__line muted">
        For {sample}
        {tried.earlierRun ? `, with earlier steps' outputs from run #${tried.earlierRun.number}.` : '; the flow has not been run from the editor yet.'} Nothing was sent.
      </p>
      {tried.problems.length > 0 && (
        <ul className="try-step__problems" data-testid="try-step.problems">
          {tried.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      {tried.request && (
        <>
          <p className="try-step__line mono" data-testid="try-step.request-line">
            <strong>{tried.request.method}</strong> {tried.request.url}
          </p>
          <Headers headers={tried.request.headers} />
          {tried.request.body !== null && (
            <pre className="try-step__body" data-testid="try-step.body">
              {tried.request.body}
            </pre>
          )}
        </>
      )}
      {tried.email && (
        <>
          <dl className="try-step__pairs" data-testid="try-step.email">
            <dt>Mail server</dt>
            <dd>{tried.email.server}</dd>
            {tried.email.user && (
              <>
                <dt>Signs in as</dt>
                <dd>{tried.email.user}</dd>
              </>
            )}
            <dt>From</dt>
            <dd>{tried.email.from}</dd>
            <dt>To</dt>
            <dd>{tried.email.to.join(', ')}</dd>
            {tried.email.cc.length > 0 && (
              <>
                <dt>Cc</dt>
                <dd>{tried.email.cc.join(', ')}</dd>
              </>
            )}
            <dt>Subject</dt>
            <dd>{tried.email.subject}</dd>
          </dl>
          <Headers headers={tried.email.headers} />
          {(tried.email.text ?? tried.email.html) !== null && <pre className="try-step__body">{tried.email.text ?? tried.email.html}</pre>}
        </>
      )}
      {tried.key && (
        <p className="try-step__line" data-testid="try-step.key">
          Key <code>{tried.key.key}</code> in the scope <code>{tried.key.scope}</code>
          {tried.key.header ? (
            <>
              , sent to the receiver in the header <code>{tried.key.header}</code>.
            </>
          ) : (
            '; the receiver is not told the key.'
          )}
        </p>
      )}
      {tried.key && (
        <p className="try-step__line muted">
          A test run from the editor passes <code>{tried.key.testKey}</code> instead, so a test never meets a live key.
        </p>
      )}
      {tried.decision && (
        <p className="try-step__line" data-testid="try-step.decision">
          {tried.decision}
        </p>
      )}
      {tried.output !== undefined && !tried.request && !tried.email && (
        <pre className="try-step__body" data-testid="try-step.output">
          {JSON.stringify(tried.output, null, 2)}
        </pre>
      )}
    </div>
  );
}

function StandInAnswer({ sent }: { sent: StandInTry }) {
  if (!sent.standIn) return <p className="try-step__line muted">Nothing was sent: fix what is listed above first.</p>;
  const { label, repeated, keySent, answer } = sent.standIn;
  return (
    <div className="try-step__result" aria-live="polite" data-testid="try-step.stand-in">
      <p className="try-step__line">
        Sent to {label}
        {keySent ? (
          <>
            {' '}
            with the key <code>{keySent}</code>
          </>
        ) : null}
        . {repeated ? 'It had seen this key before, so it answered from its record and did nothing again:' : 'It answered:'}
      </p>
      <pre className="try-step__body">{JSON.stringify(answer, null, 2)}</pre>
    </div>
  );
}

function Headers({ headers }: { headers: readonly Header[] }) {
  if (headers.length === 0) return null;
  return (
    <dl className="try-step__pairs" data-testid="try-step.headers">
      {headers.map((header) => (
        <div key={header.name} style={{ display: 'contents' }}>
          <dt>{header.name}</dt>
          <dd>{header.value}</dd>
        </div>
      ))}
    </dl>
  );
}
