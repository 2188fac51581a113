import { useReactFlow } from '@xyflow/react';
import type { KeyboardEvent } from 'react';
import { FlowSettings } from './FlowSettings.tsx';
import { FlowAlertsPanel } from '../alerts/FlowAlertsPanel.tsx';
import { Inspector } from './inspector/Inspector.tsx';
import { SampleInputEditor } from './SampleInputEditor.tsx';
import { useShallow } from 'zustand/react/shallow';
import { dispatch, selectSelectedStep, useEditorStore } from './useEditorStore.ts';
import type { FlowProblem } from './useStepProblems.ts';
import { VersionList, type VersionSummary } from './VersionList.tsx';

export type PanelTab = 'step' | 'sample' | 'settings' | 'alerts' | 'problems' | 'versions';

const TABS: ReadonlyArray<{ tab: PanelTab; title: string }> = [
  { tab: 'step', title: 'Step' },
  { tab: 'sample', title: 'Sample inputs' },
  { tab: 'settings', title: 'Settings' },
  { tab: 'alerts', title: 'Alerts' },
  { tab: 'problems', title: 'Problems' },
  { tab: 'versions', title: 'Versions' },
];

interface SidePanelProps {
  flowId: string;
  tab: PanelTab;
  onTab(tab: PanelTab): void;
  problems: readonly FlowProblem[];
  versions: readonly VersionSummary[];
  hookIds: ReadonlyMap<string, string>;
  readOnly: boolean;
}

export function SidePanel({ flowId, tab, onTab, problems, versions, hookIds, readOnly }: SidePanelProps) {
  const selected = useEditorStore(useShallow(selectSelectedStep));
  const errorCount = problems.filter((problem) => problem.severity === 'error').length;

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const at = TABS.findIndex((item) => item.tab === tab);
    const next = TABS[(at + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
    if (next) {
      onTab(next.tab);
      document.getElementById(`panel-tab-${next.tab}`)?.focus();
    }
  };

  return (
    <aside className="side-panel" aria-label="Details">
      <div className="tabs" role="tablist" aria-label="Details" onKeyDown={onKeyDown}>
        {TABS.map((item) => (
          <button
            key={item.tab}
            id={`panel-tab-${item.tab}`}
            type="button"
            role="tab"
            aria-selected={tab === item.tab}
            aria-controls="panel-body"
            tabIndex={tab === item.tab ? 0 : -1}
            className="tabs__tab"
            onClick={() => onTab(item.tab)}
          >
            {item.title}
            {item.tab === 'problems' && errorCount > 0 && <span className="tabs__count">{errorCount}</span>}
          </button>
        ))}
      </div>
      <div className="side-panel__body" id="panel-body" role="tabpanel" aria-labelledby={`panel-tab-${tab}`}>
        {tab === 'step' &&
          (selected ? (
            <Inspector key={selected.id} flowId={flowId} node={selected} hookIds={hookIds} readOnly={readOnly} />
          ) : (
            <div className="panel-empty">
              <strong>No step selected</strong>
              <p>Click a step on the canvas to change its settings, or add one from the left.</p>
            </div>
          ))}
        {tab === 'sample' && <SampleInputEditor readOnly={readOnly} />}
        {tab === 'settings' && <FlowSettings problems={problems} readOnly={readOnly} />}
        {tab === 'problems' && <ProblemList problems={problems} />}
        {tab === 'versions' && <VersionList flowId={flowId} versions={versions} />}
        {tab === 'alerts' && <FlowAlertsPanel readOnly={readOnly} problems={problems} />}
      </div>
    </aside>
  );
}

const errorCount = (problems: readonly FlowProblem[]) => problems.filter((problem) => problem.severity === 'error').length;

function ProblemList({ problems }: { problems: readonly FlowProblem[] }) {
  const { fitView } = useReactFlow();
  const show = (nodeId: string | undefined) => {
    if (!nodeId) return;
    dispatch({ type: 'selectOnly', nodeIds: [nodeId] });
    void fitView({ nodes: [{ id: nodeId }], duration: 300, maxZoom: 1.1 });
  };
  return (
    <div>
      <h2 className="panel-title">Problems</h2>
      {problems.length === 0 && <p className="empty">Nothing to fix. The flow can be published.</p>}
      {errorCount(problems) > 0 && <p className="field__hint">The flow cannot be published until the problems marked “Must fix” are fixed. Click one to go to its step.</p>}
      <ul className="problem-list" data-testid="problems.list">
        {problems.map((problem, index) => (
          <li key={index} className={`problem-list__item problem-list__item--${problem.severity}`}>
            <span className="problem-list__severity">{problem.severity === 'error' ? 'Must fix' : 'Warning'}</span>
            {problem.nodeId ? (
              <button type="button" className="link-button problem-list__message" onClick={() => show(problem.nodeId)}>
                {problem.message}
              </button>
            ) : (
              <span className="problem-list__message">{problem.message}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
