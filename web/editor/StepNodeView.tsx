import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { isSideEffectStep } from '../../core/step-kinds.ts';
import type { StepNode } from './editor-changes.ts';
import { KindIcon } from './KindIcon.tsx';
import { isTriggerKind, kindInfo } from './node-kinds.ts';
import { useStepProblems, withoutStepName } from './useStepProblems.ts';

/** One step on the canvas: its kind, its label, a side-effect badge and what needs fixing. */
export const StepNodeView = memo(function StepNodeView({ id, type, data, selected }: NodeProps<StepNode>) {
  const info = kindInfo(type);
  const problems = useStepProblems(id);
  const errors = problems.filter((problem) => problem.severity === 'error');
  const trigger = isTriggerKind(type);
  const sideEffect = !trigger && isSideEffectStep({ type, data });
  const label = typeof data.label === 'string' && data.label.trim() !== '' ? data.label : (info?.label ?? type);
  const reason = errors[0] ? withoutStepName(errors[0].message) : null;
  const classes = ['step-node', `step-node--${info?.group ?? 'logic'}`, type === 'condition' ? 'step-node--exits' : '', selected ? 'is-selected' : '', reason ? 'is-invalid' : ''];

  return (
    <div className={classes.join(' ')} data-testid={`node.${type}`} data-node-id={id}>
      {!trigger && <Handle type="target" position={Position.Left} className="step-handle" title={`Connect into ${label}`} />}
      <div className="step-node__main">
        <span className="step-node__icon">
          <KindIcon kind={type} />
        </span>
        <span className="step-node__text">
          <span className="step-node__label">{label}</span>
          <span className="step-node__kind">{info?.label ?? type}</span>
        </span>
        {reason && (
          <span className="step-node__mark" role="img" aria-label={`Needs fixing: ${reason}`} title={reason}>
            !
          </span>
        )}
      </div>
      {(sideEffect || reason) && (
        <div className="step-node__foot">
          {sideEffect && (
            <span className="badge badge--effect" title="Changes something outside Onceflow; its idempotency key makes sure it happens once.">
              <KindIcon kind="sideEffect" size={11} /> Side effect
            </span>
          )}
          {reason && (
            <span className="step-node__reason" data-testid="node.problem">
              {reason}
              {errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}
            </span>
          )}
        </div>
      )}
      {/* The Yes/No tags sit inside the box, beside their exits: outside, they landed on the connection's own Yes/No label. */}
      {type === 'condition' ? (
        <>
          <Handle id="true" type="source" position={Position.Right} className="step-handle step-handle--true" style={{ top: '32%' }} title={`Yes exit of ${label}`} />
          <span className="handle-tag handle-tag--true" style={{ top: '32%' }} aria-hidden="true">
            Yes
          </span>
          <Handle id="false" type="source" position={Position.Right} className="step-handle step-handle--false" style={{ top: '72%' }} title={`No exit of ${label}`} />
          <span className="handle-tag handle-tag--false" style={{ top: '72%' }} aria-hidden="true">
            No
          </span>
        </>
      ) : (
        <Handle type="source" position={Position.Right} className="step-handle" title={`Connect from ${label}`} />
      )}
    </div>
  );
});
