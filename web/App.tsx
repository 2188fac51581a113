import { FlowList } from './flows/FlowList.tsx';
import { navigate, usePath } from './lib/router.ts';

export function App() {
  const path = usePath();
  return (
    <div className="app">
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
  if (flowMatch) return <p>Flow {decodeURIComponent(flowMatch[1]!)}</p>;
  return <FlowList />;
}
