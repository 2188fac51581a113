/**
 * An address the app has no page for: an old link, a typo, a page a newer version moved.
 * Showing the flow list there instead would read as the page being lost or empty; this
 * says what happened and offers the way back.
 */
import { followLink } from './lib/router.ts';

export function NotFoundPage({ path }: { path: string }) {
  return (
    <section aria-labelledby="not-found-heading" className="list-page">
      <div className="page-head">
        <h1 id="not-found-heading">Page not found</h1>
      </div>
      <p>Onceflow has no page at <code className="not-found__path">{path}</code>. The link may be old or mistyped.</p>
      <p>
        Go to <a href="/" onClick={followLink('/')}>your flows</a> or <a href="/runs" onClick={followLink('/runs')}>every run</a>.
      </p>
    </section>
  );
}
