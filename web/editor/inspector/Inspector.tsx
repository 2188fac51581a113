import { isSideEffectStep } from '../../../core/step-kinds.ts';
import { KindIcon } from '../KindIcon.tsx';
import { isTriggerKind, kindInfo } from '../node-kinds.ts';
import { deleteSteps } from '../delete-steps.ts';
import type { SelectedStep } from '../useEditorStore.ts';
import { PickerStepContext, useStepEditor, type StepEditor } from '../useStepEditor.ts';
import { withoutStepName } from '../useStepProblems.ts';
import { EmailForm, HttpRequestForm, MessageForm } from './ActionForms.tsx';
import { Section, TextField } from './Fields.tsx';
import { ForEachForm } from './ForEachForm.tsx';
import { FlowRunForm } from './FlowRunForm.tsx';
import { ConditionForm, DelayForm, StateTransitionForm, TransformForm } from './LogicForms.tsx';
import { SideEffectSection } from './SideEffectSection.tsx';
import { ManualTriggerForm, ScheduleTriggerForm, WebhookTriggerForm } from './TriggerForms.tsx';
import { TryStep } from './TryStep.tsx';

interface InspectorProps {
  flowId: string;
  node: SelectedStep;
  hookIds: ReadonlyMap<string, string>;
  /** Shows the settings without letting them change (the editor at phone width). */
  readOnly?: boolean;
}

/** The settings of the selected step, as a form for its kind. */
export function Inspector({ flowId, node, hookIds, readOnly = false }: InspectorProps) {
  const step = useStepEditor(node);
  const info = kindInfo(node.type);
  const errors = step.problems.filter((problem) => problem.severity === 'error');
  const warnings = step.problems.filter((problem) => problem.severity === 'warning' && problem.field !== 'key');

  return (
    <PickerStepContext.Provider value={node.id}>
      <div className="inspector" data-testid="inspector">
        <header className={`inspector__head inspector__head--${info?.group ?? 'logic'}`}>
          <span className="inspector__icon">
            <KindIcon kind={node.type ?? ''} size={20} />
          </span>
          <div>
            <h2>{info?.label ?? node.type}</h2>
            <p className="muted">{info?.summary ?? 'A kind of step this editor does not know.'}</p>
          </div>
          {!readOnly && (
            <button type="button" className="button-danger small" onClick={() => deleteSteps([node.id])}>
              Delete step
            </button>
          )}
        </header>
        {(errors.length > 0 || warnings.length > 0) && (
          <div className={`inspector__problems${errors.length === 0 ? ' is-warning' : ''}`} role="note" aria-label="What needs fixing in this step">
            <strong>{errors.length > 0 ? 'This step needs fixing before the flow can be published' : 'Worth a look'}</strong>
            <ul>
              {[...errors, ...warnings].map((problem) => (
                <li key={`${problem.code}:${problem.field ?? ''}:${problem.message}`}>{withoutStepName(problem.message)}</li>
              ))}
            </ul>
          </div>
        )}
        {/* A disabled fieldset keeps every field readable while none can change. */}
        <fieldset className="inspector__fields" disabled={readOnly}>
          <Section title="Step">
            <TextField label="Label" value={step.text('label')} onChange={(value) => step.set('label', value)} placeholder={info?.label} hint={`Shown on the canvas and in run timelines. Id: ${node.id}`} testId="inspector.label" />
            <KindForm step={step} hookId={hookIds.get(node.id)} />
          </Section>
          {/* Logic steps change nothing outside; their switch only shows for one a file marked otherwise. */}
          {info && (info.group === 'action' || (!isTriggerKind(node.type) && isSideEffectStep({ type: node.type ?? '', data: node.data }))) && (
            <SideEffectSection step={step} flowId={flowId} />
          )}
        </fieldset>
        {/* Outside the fieldset: trying a step changes nothing, so it works read-only too. */}
        {info && !isTriggerKind(node.type) && <TryStep flowId={flowId} node={node} />}
      </div>
    </PickerStepContext.Provider>
  );
}

function KindForm({ step, hookId }: { step: StepEditor; hookId: string | undefined }) {
  switch (step.node.type) {
    case 'trigger.manual':
      return <ManualTriggerForm />;
    case 'trigger.webhook':
      return <WebhookTriggerForm step={step} {...(hookId ? { hookId } : {})} />;
    case 'trigger.schedule':
      return <ScheduleTriggerForm step={step} />;
    case 'http.request':
      return <HttpRequestForm step={step} />;
    case 'email.send':
      return <EmailForm step={step} />;
    case 'message.post':
      return <MessageForm step={step} />;
    case 'transform':
      return <TransformForm step={step} />;
    case 'condition':
      return <ConditionForm step={step} />;
    case 'delay':
      return <DelayForm step={step} />;
    case 'state.transition':
      return <StateTransitionForm step={step} />;
    case 'for.each':
      return <ForEachForm step={step} />;
    case 'flow.run':
      return <FlowRunForm step={step} />;
    default:
      return <p className="inspector-note">This editor has no form for steps of the kind “{step.node.type}”. Its settings are kept as they are.</p>;
  }
}
