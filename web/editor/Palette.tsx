import { useReactFlow } from '@xyflow/react';
import type { DragEvent } from 'react';
import { addKind, STEP_HEIGHT, STEP_WIDTH } from './add-kind.ts';
import { KindIcon } from './KindIcon.tsx';
import { GROUPS, KIND_DRAG_TYPE, KINDS, type KindInfo } from './node-kinds.ts';
import { newStepContext, useSandboxAddresses } from './useSandboxAddresses.ts';
import { canvasBox, useRevealAdded } from './useRevealAdded.ts';

/** The step kinds, grouped; drag one onto the canvas, or click to add it after the selected step (or inside the selected loop). */
export function Palette() {
  const { screenToFlowPosition } = useReactFlow();
  const revealAdded = useRevealAdded();
  // Fetched when the editor opens, so a new Send email step gets the sandbox's mail server at once.
  useSandboxAddresses();

  const add = async (info: KindInfo) => {
    const context = await newStepContext();
    // With nothing selected, a clicked step lands in the middle of what is on screen.
    const box = canvasBox();
    const fallback = box ? screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 }) : undefined;
    addKind(info.kind, fallback ? { fallback: { x: fallback.x - STEP_WIDTH / 2, y: fallback.y - STEP_HEIGHT / 2 } } : {}, context);
    revealAdded();
  };

  const startDrag = (event: DragEvent, info: KindInfo) => {
    event.dataTransfer.setData(KIND_DRAG_TYPE, info.kind);
    event.dataTransfer.effectAllowed = 'copy';
  };

  return (
    <nav className="palette" aria-label="Steps you can add">
      <p className="palette__hint">Drag a step onto the canvas, or click it to add it after the selected step. Dropped on a For each, or clicked while one is selected, a step goes inside it.</p>
      {GROUPS.map(({ group, title }) => (
        <section key={group} className={`palette__group palette__group--${group}`} aria-labelledby={`palette-${group}`}>
          <h2 id={`palette-${group}`}>{title}</h2>
          <ul>
            {KINDS.filter((info) => info.group === group).map((info) => (
              <li key={info.kind}>
                <button
                  type="button"
                  className="palette__item"
                  draggable
                  onDragStart={(event) => startDrag(event, info)}
                  onClick={() => void add(info)}
                  aria-label={info.label}
                  title={info.summary}
                  data-testid={`palette.${info.kind}`}
                >
                  <span className="palette__icon">
                    <KindIcon kind={info.kind} size={16} />
                  </span>
                  <span className="palette__text">
                    <span className="palette__label">{info.label}</span>
                    <span className="palette__summary">{info.summary}</span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}
