/**
 * A For each step on the canvas: a box that holds its body. The header carries the loop's
 * name, the list it goes through, its connections in and out, and "Add a step inside";
 * the steps inside are React Flow child nodes drawn in the area below (loop-layout.ts).
 */
import { Handle, Position, useStore, type NodeProps, type ReactFlowState } from '@xyflow/react';
import { memo, useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type FocusEvent, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import type { StepNode } from './editor-changes.ts';
import { addKind } from './add-kind.ts';
import { KindIcon } from './KindIcon.tsx';
import { canGoInside, LOOP_HEADER, menuPlace, type MenuPlace } from './loop-layout.ts';
import { KINDS } from './node-kinds.ts';
import { dispatch, useEditorStore } from './useEditorStore.ts';
import { canvasBox, useRevealAdded } from './useRevealAdded.ts';
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

/**
 * A button that lists the kinds a loop can hold; choosing one adds it inside, after the body's
 * last step. The list is drawn over the page, not in the loop: React Flow stacks a loop's steps
 * above the loop, so a list inside the loop's box would open under them.
 */
function AddInside({ loopId, label }: { loopId: string; label: string }) {
  const [open, setOpen] = useState(false);
  const revealAdded = useRevealAdded();
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const menuId = useId();
  const [place, setPlace] = useState<MenuPlace | null>(null);
  // The focus goes back to the button, as from any menu, so a keyboard is not left on the
  // page's body; without scrolling, which would move the canvas under it.
  const closeToButton = () => {
    setOpen(false);
    button.current?.focus({ preventScroll: true });
  };
  // Placed under the button (over it when there is no room below, loop-layout.ts), and kept
  // there while the canvas moves: the pan that brings a new step into view may still be on
  // its way when the list is opened again.
  const follow = useCallback(() => {
    if (!button.current || !menu.current) return;
    const page = { width: window.innerWidth, height: window.innerHeight };
    setPlace(menuPlace(button.current.getBoundingClientRect(), menu.current.offsetHeight, page, canvasBox()));
  }, []);
  // The canvas's pan and zoom while the list is open; null while it is closed, so a closed
  // list's loop is not drawn again at every frame of a pan.
  const viewport = useStore(useCallback((state: ReactFlowState) => (open ? state.transform : null), [open]));
  useLayoutEffect(() => {
    if (open) follow();
    else setPlace(null);
  }, [open, viewport, follow]);
  // Once placed, its first choice takes the focus, so the keyboard goes on from where the
  // person is (a list still hidden could not take it).
  const placed = place !== null;
  useLayoutEffect(() => {
    if (placed) menu.current?.querySelector('button')?.focus();
  }, [placed]);
  useEffect(() => {
    if (!open) return;
    // A press anywhere else closes the list.
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!box.current?.contains(target) && !menu.current?.contains(target)) setOpen(false);
    };
    // The button moves with the page, and with the loop's right end when a step just added
    // makes the loop wider.
    const loopGrows = new ResizeObserver(follow);
    const loopBox = box.current?.closest('.loop-node');
    if (loopBox) loopGrows.observe(loopBox);
    document.addEventListener('pointerdown', onPointerDown);
    window.addEventListener('resize', follow);
    window.addEventListener('scroll', follow, true);
    return () => {
      loopGrows.disconnect();
      document.removeEventListener('pointerdown', onPointerDown);
      window.removeEventListener('resize', follow);
      window.removeEventListener('scroll', follow, true);
    };
  }, [open, follow]);
  const add = async (kind: string) => {
    closeToButton();
    const context = await newStepContext();
    // With the loop selected, a new step goes into its body (add-kind.ts).
    dispatch({ type: 'selectOnly', nodeIds: [loopId] });
    addKind(kind, {}, context);
    // A third step and on goes past the loop's right end, which may be past the canvas's.
    revealAdded();
  };
  // Keys typed in the menu are the menu's: React Flow would otherwise move or select the loop.
  // (React passes them up from the list to here although the list is drawn elsewhere.)
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && open) closeToButton();
    if (event.key !== 'Tab') event.stopPropagation();
  };
  // Tabbing out of the list closes it.
  const onMenuBlur = (event: FocusEvent) => {
    const to = event.relatedTarget as Node | null;
    if (!menu.current?.contains(to) && !box.current?.contains(to)) setOpen(false);
  };
  return (
    <div className="loop-node__add nodrag nopan" onKeyDown={onKeyDown} ref={box}>
      <button
        type="button"
        ref={button}
        className="button-secondary small"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={`Add a step inside ${label}`}
        onClick={() => setOpen((was) => !was)}
        data-testid="loop.add-inside"
      >
        + Add a step inside
      </button>
      {open &&
        createPortal(
          <ul id={menuId} ref={menu} className="loop-node__menu" style={place ?? { visibility: 'hidden' }} aria-label={`Steps you can add inside ${label}`} onBlur={onMenuBlur}>
            {INSIDE_KINDS.map((info) => (
              <li key={info.kind}>
                <button type="button" className="loop-node__choice" onClick={() => void add(info.kind)}>
                  <KindIcon kind={info.kind} size={14} /> {info.label}
                </button>
              </li>
            ))}
          </ul>,
          document.body,
        )}
    </div>
  );
}
