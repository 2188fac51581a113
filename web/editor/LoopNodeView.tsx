/**
 * A For each step on the canvas: a box that holds its body. The header carries the loop's
 * name, the list it goes through, its connections in and out, and "Add a step inside";
 * the steps inside are React Flow child nodes drawn in the area below (loop-layout.ts).
 */
import { Handle, Position, useStore, type NodeProps } from '@xyflow/react';
import { memo, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { StepNode } from './editor-changes.ts';
import { addKind } from './add-kind.ts';
import { KindIcon } from './KindIcon.tsx';
import { canGoInside, LOOP_HEADER } from './loop-layout.ts';
import { KINDS } from './node-kinds.ts';
import { dispatch, useEditorStore } from './useEditorStore.ts';
import { newStepContext } from './useSandboxAddresses.ts';
import { useStepProblems, withoutStepName } from './useStepProblems.ts';

const HANDLE_STYLE = { top: LOOP_HEADER / 2 } as const;
const INSIDE_KINDS = KINDS.filter((info) => canGoInside(info.kind));

/** The words under the loop's name: which list it goes through. */
export function loopListWords(items: unknown): string {
  const text = typeof items === 'string' ? items.trim() : '';
  if (text === '') return 'Choose a list to go through';
  const single = /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(text);
  return `For each item of ${single ? single[1] : text}`;
}

export const LoopNodeView = memo(function LoopNodeView(props: NodeProps<StepNode>) {
  return <LoopBox {...props} />;
});

interface LoopBoxProps extends NodeProps<StepNode> {
  /** A line under the loop's name and list (the run page's counts). */
  note?: ReactNode;
}

export function LoopBox({ id, data, selected, note }: LoopBoxProps) {
  const problems = useStepProblems(id);
  const errors = problems.filter((problem) => problem.severity === 'error');
  // False on the run page and at phone width, where the flow is only looked at.
  const editable = useStore((state) => state.nodesDraggable);
  const empty = useEditorStore((state) => !state.nodes.some((node) => node.parentId === id));
  const label = typeof data.label === 'string' && data.label.trim() !== '' ? data.label : 'For each';
  const reason = errors[0] ? withoutStepName(errors[0].message) : null;
  const classes = ['loop-node', selected ? 'is-selected' : '', reason ? 'is-invalid' : ''];

  return (
    <div className={classes.filter(Boolean).join(' ')} data-testid="node.for.each" data-node-id={id}>
      <Handle type="target" position={Position.Left} className="step-handle" style={HANDLE_STYLE} title={`Connect into ${label}`} />
      <div className="loop-node__head">
        <span className="step-node__icon loop-node__icon">
          <KindIcon kind="for.each" />
        </span>
        <span className="step-node__text">
          <span className="step-node__label">{label}</span>
          <span className="step-node__kind">{loopListWords(data.items)}</span>
          {note}
          {reason && (
            <span className="step-node__reason" data-testid="node.problem">
              {reason}
              {errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}
            </span>
          )}
        </span>
        {editable && <AddInside loopId={id} label={label} />}
      </div>
      <div className="loop-node__body" aria-hidden={!empty || !editable}>
        {empty && editable && <p className="loop-node__empty">The steps inside run once for every item. Drag a step here, or use “Add a step inside”.</p>}
      </div>
      <Handle type="source" position={Position.Right} className="step-handle" style={HANDLE_STYLE} title={`Connect from ${label}`} />
    </div>
  );
}

/** A button that lists the kinds a loop can hold; choosing one adds it inside, after the body's last step. */
function AddInside({ loopId, label }: { loopId: string; label: string }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  // A press anywhere else closes the list.
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);
  const add = async (kind: string) => {
    setOpen(false);
    const context = await newStepContext();
    // With the loop selected, a new step goes into its body (add-kind.ts).
    dispatch({ type: 'selectOnly', nodeIds: [loopId] });
    addKind(kind, {}, context);
  };
  // Keys typed in the menu are the menu's: React Flow would otherwise move or select the loop.
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') setOpen(false);
    if (event.key !== 'Tab') event.stopPropagation();
  };
  return (
    <div className="loop-node__add nodrag nopan" onKeyDown={onKeyDown} ref={box}>
      <button type="button" className="button-secondary small" aria-expanded={open} aria-label={`Add a step inside ${label}`} onClick={() => setOpen((was) => !was)} data-testid="loop.add-inside">
        + Add a step inside
      </button>
      {open && (
        <ul className="loop-node__menu" aria-label={`Steps you can add inside ${label}`}>
          {INSIDE_KINDS.map((info) => (
            <li key={info.kind}>
              <button type="button" className="loop-node__choice" onClick={() => void add(info.kind)}>
                <KindIcon kind={info.kind} size={14} /> {info.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
