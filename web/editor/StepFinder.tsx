/**
 * "Go to step": every step of a big flow in one keyboard-reachable list. A big flow's
 * canvas draws only the steps in view (canvas-view.ts), so Tab cannot reach the others;
 * choosing one here selects it, brings it into view and puts the keyboard focus on it,
 * from where Tab carries on to its neighbours.
 */
import './step-finder.css';
import { Panel, useReactFlow } from '@xyflow/react';
import { useId, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { stepName } from './edge-names.ts';
import { kindLabel } from './node-kinds.ts';
import { dispatch, selectStepData, useEditorStore } from './useEditorStore.ts';

// Frames to wait for the chosen step to be drawn before focusing it.
const FOCUS_TRIES = 20;

function focusStep(id: string, tries = FOCUS_TRIES) {
  const element = document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
  if (element) element.focus({ preventScroll: true });
  else if (tries > 0) requestAnimationFrame(() => focusStep(id, tries - 1));
}

export function StepFinder() {
  const id = useId();
  const { fitView } = useReactFlow();
  // Follows steps added, removed or renamed; not steps moved.
  const settings = useEditorStore(useShallow(selectStepData));
  const steps = useMemo(() => {
    void settings;
    return useEditorStore.getState().nodes.map((node) => ({ id: node.id, name: `${stepName(node)} (${kindLabel(node.type)})` }));
  }, [settings]);

  const go = (stepId: string) => {
    if (!stepId) return;
    dispatch({ type: 'selectOnly', nodeIds: [stepId] });
    void fitView({ nodes: [{ id: stepId }], maxZoom: 1, minZoom: 1 }).then(() => focusStep(stepId));
  };

  return (
    <Panel position="top-left" className="step-finder">
      <label htmlFor={id}>Go to step</label>
      <select id={id} value="" onChange={(event) => go(event.target.value)} data-testid="canvas.step-finder">
        <option value="">Choose one of {steps.length} steps…</option>
        {steps.map((step) => (
          <option key={step.id} value={step.id}>
            {step.name}
          </option>
        ))}
      </select>
    </Panel>
  );
}
