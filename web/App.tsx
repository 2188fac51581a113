import { lazy, Suspense } from 'react';
import { FlowList } from './flows/FlowList.tsx';
import { followLink, usePath } from './lib/router.ts';
import { NotFoundPage } from './NotFoundPage.tsx';

// The editor (React Flow) and the run pages load when first visited, so the first page's
// code stays small (under 150 KB compressed: `npm run bench` measures it).
const FlowEditor = lazy(() => import('./editor/FlowEditor.tsx').then((module) => ({ default: module.FlowEditor })));
const InboxPage = lazy(() => import('./runs/InboxPage.tsx').then((module) => ({ default: module.InboxPage })));
const OperationReportPage = lazy(() => import('./operations/OperationReportPage.tsx').then((module) => ({ default: module.OperationReportPage })));
const ProofReportPage = lazy(() => import('./proofs/ProofReportPage.tsx').then((module) => ({ default: module.ProofReportPage })));
const RunHistory = lazy(() => import('./runs/RunHistory.tsx').then((module) => ({ default: module.RunHistory })));
const RunView = lazy(() => import('./runs/RunView.tsx').then((module) => ({ default: module.RunView })));
const DefaultAlertsPage = lazy(() => import('./alerts/DefaultAlertsPage.tsx').then((module) => ({ default: module.DefaultAlertsPage })));
const SecretsPage = lazy(() => import('./secrets/SecretsPage.tsx').then((module) => ({ default: module.SecretsPage })));

type Route =
  | { page: 'flows' }
  | { page: 'editor'; flowId: string }
  | { page: 'inbox'; flowId: string }
  | { page: 'proof'; flowId: string; proofId: string }
  | { page: 'runs' }
  | { page: 'run'; runId: string }
  | { page: 'operation'; operationId: string }
  | { page: 'secrets' }
  | { page: 'alerts' }
  | { page: 'not-found'; path: string };

function route(path: string): Route {
  const part = (match: RegExpExecArray) => decodeURIComponent(match[1]!);
  let match = /^\/flows\/([^/]+)\/inbox\/?$/.exec(path);
  if (match) return { page: 'inbox', flowId: part(match) };
  match = /^\/flows\/([^/]+)\/proofs\/([^/]+)\/?$/.exec(path);
  if (match) return { page: 'proof', flowId: part(match), proofId: decodeURIComponent(match[2]!) };
  match = /^\/flows\/([^/]+)\/?$/.exec(path);
  if (match) return { page: 'editor', flowId: part(match) };
  match = /^\/runs\/([^/]+)\/?$/.exec(path);
  if (match) return { page: 'run', runId: part(match) };
  match = /^\/operations\/([^/]+)\/?$/.exec(path);
  if (match) return { page: 'operation', operationId: part(match) };
  if (/^\/runs\/?$/.test(path)) return { page: 'runs' };
  if (/^\/secrets\/?$/.test(path)) return { page: 'secrets' };
  if (/^\/alerts\/?$/.test(path)) return { page: 'alerts' };
  if (path === '/' || path === '/index.html') return { page: 'flows' };
  return { page: 'not-found', path };
}

/** The menu entry a page belongs to; an address with no page belongs to none. */
function sectionOf(page: Route['page']): 'flows' | 'runs' | 'secrets' | 'alerts' | null {
  if (page === 'runs' || page === 'run' || page === 'operation') return 'runs';
  if (page === 'secrets' || page === 'alerts') return page;
  return page === 'not-found' ? null : 'flows';
}

// Pages that fill the window (a canvas) rather than scroll.
const FULL_HEIGHT: ReadonlySet<Route['page']> = new Set(['editor', 'run']);

export function App() {
  const current = route(usePath());
  const section = sectionOf(current.page);
  return (
    <div className={`app app--page-${current.page}${FULL_HEIGHT.has(current.page) ? ' app--editor' : ''}`}>
      <header className="app-header">
        <a href="/" onClick={followLink('/')} className="brand">
          Onceflow
        </a>
        <nav className="app-nav" aria-label="Main">
          <NavLink href="/" current={section === 'flows'}>Flows</NavLink>
          <NavLink href="/runs" current={section === 'runs'}>Runs</NavLink>
          <NavLink href="/secrets" current={section === 'secrets'}>Secrets</NavLink>
          <NavLink href="/alerts" current={section === 'alerts'}>Alerts</NavLink>
        </nav>
        <span className="tagline">Automations that are safe to repeat</span>
      </header>
      <main className="app-main">
        <Suspense fallback={<p className="empty">Loading…</p>}>
          <Page route={current} />
        </Suspense>
      </main>
    </div>
  );
}

function NavLink({ href, current, children }: { href: string; current: boolean; children: string }) {
  return (
    <a
      href={href}
      className="app-nav__link"
      aria-current={current ? 'page' : undefined}
      onClick={followLink(href)}
    >
      {children}
    </a>
  );
}

function Page({ route: current }: { route: Route }) {
  // Keyed by id, so opening another flow or run starts afresh.
  switch (current.page) {
    case 'editor':
      return <FlowEditor key={current.flowId} flowId={current.flowId} />;
    case 'inbox':
      return <InboxPage key={current.flowId} flowId={current.flowId} />;
    case 'proof':
      return <ProofReportPage key={current.proofId} flowId={current.flowId} proofId={current.proofId} />;
    case 'run':
      return <RunView key={current.runId} runId={current.runId} />;
    case 'operation':
      return <OperationReportPage key={current.operationId} operationId={current.operationId} />;
    case 'runs':
      return <RunHistory />;
    case 'secrets':
      return <SecretsPage />;
    case 'alerts':
      return <DefaultAlertsPage />;
    case 'flows':
      return <FlowList />;
    case 'not-found':
      return <NotFoundPage path={current.path} />;
  }
}
