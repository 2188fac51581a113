import { useMutation } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../../server/trpc/router.ts';
import { trpc } from '../../lib/trpc.ts';
import { isDefaultSample, useChosenSample } from '../chosen-sample.ts';
import { currentDocument, type SelectedStep } from '../useEditorStore.ts';

type Tried = inferRouterOutputs<AppRouter>['steps']['try'];
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
  const tried = attempt.data;
  const sampleWords = isDefaultSample(chosen) ? 'the sample input' : `the sample “${chosen.name}”`;

  const run = () =>
    attempt.mutate({
      flowId,
      nodeId: node.id,
      ...(isDefaultSample(chosen) ? {} : { sample: chosen.name }),
      // The canvas as it is now, saved or not.
      document: currentDocument(),
    });

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
      {attempt.error && (
        <p className="field-problem field-problem--error" role="alert">
          The step could not be tried: {attempt.error.message}
        </p>
      )}
      {tried && <TriedView tried={tried} />}
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
