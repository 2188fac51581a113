import { useReactFlow } from '@xyflow/react';
import type { DragEvent } from 'react';
import { addKind, STEP_HEIGHT, STEP_WIDTH } from './add-kind.ts';
import { KindIcon } from './KindIcon.tsx';
import { GROUPS, KIND_DRAG_TYPE, KINDS, type KindInfo } from './node-kinds.ts';
import { selectSelectedNode, useEditorStore } from './useEditorStore.ts';

/** The step kinds, grouped; drag one onto the canvas, or click to add it after the selected step. */
export function Palette() {
  const { screenToFlowPosition, flowToScreenPosition, setCenter, getZoom } = useReactFlow();

  const add = (info: KindInfo) => {
    // With nothing selected, a clicked step lands in the middle of what is on screen.
    const box = document.querySelector('[data-testid="editor.canvas"]')?.getBoundingClientRect();
    const fallback = box ? screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 }) : undefined;
    addKind(info.kind, fallback ? { fallback: { x: fallback.x - STEP_WIDTH / 2, y: fallback.y - STEP_HEIGHT / 2 } } : {});
    // Bring the new step into view when it landed beyond the edge.
    const added = selectSelectedNode(useEditorStore.getState());
    if (!added || !box) return;
    const topLeft = flowToScreenPosition(added.position);
    const bottomRight = flowToScreenPosition({ x: added.position.x + STEP_WIDTH, y: added.position.y + STEP_HEIGHT });
    if (topLeft.x < box.left || topLeft.y < box.top || bottomRight.x > box.right || bottomRight.y > box.bottom) {
      void setCenter(added.position.x + STEP_WIDTH / 2, added.position.y + STEP_HEIGHT / 2, { zoom: getZoom(), duration: 250 });
    }
  };

  const startDrag = (event: DragEvent, info: KindInfo) => {
    event.dataTransfer.setData(KIND_DRAG_TYPE, info.kind);
    event.dataTransfer.effectAllowed = 'copy';
  };

  return (
    <nav className="palette" aria-label="Steps you can add">
      <p className="palette__hint">Drag a step onto the canvas, or click it to add it after the selected step.</p>
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
                  onClick={() => add(info)}
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
