import { navigate } from '../lib/router.ts';

/** Where a run opens; the run view with its timeline takes this place. */
export function RunPlaceholder({ runId }: { runId: string }) {
  return (
    <section className="run-placeholder" aria-labelledby="run-heading">
      <h1 id="run-heading">Run {runId}</h1>
      <p>The run has started. Its timeline will be shown here.</p>
      <a
        href="/"
        onClick={(event) => {
          event.preventDefault();
          navigate('/');
        }}
      >
        Back to all flows
      </a>
    </section>
  );
}
