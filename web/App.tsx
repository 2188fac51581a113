import { FlowEditor } from './editor/FlowEditor.tsx';
import { FlowList } from './flows/FlowList.tsx';
import { navigate, usePath } from './lib/router.ts';
import { RunPlaceholder } from './runs/RunPlaceholder.tsx';

export function App() {
  const path = usePath();
  const flowMatch = /^\/flows\/([^/]+)$/.exec(path);
  return (
    <div className={flowMatch ? 'app app--editor' : 'app'}>
      <header className="app-header">
        <a href="/" onClick={(event) => { event.preventDefault(); navigate('/'); }} className="brand">
          Onceflow
        </a>
        <span className="tagline">Automations that are safe to repeat</span>
      </header>
      <main className="app-main">
        <Page path={path} />
      </main>
    </div>
  );
}

function Page({ path }: { path: string }) {
  const flowMatch = /^\/flows\/([^/]+)$/.exec(path);
  // Keyed by id, so opening another flow starts a fresh editor.
  if (flowMatch) {
    const flowId = decodeURIComponent(flowMatch[1]!);
    return <FlowEditor key={flowId} flowId={flowId} />;
  }
  const runMatch = /^\/runs\/([^/]+)$/.exec(path);
  if (runMatch) return <RunPlaceholder runId={decodeURIComponent(runMatch[1]!)} />;
  return <FlowList />;
}
