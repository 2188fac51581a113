/**
 * At phone width the editor opens read-only: the flow can be looked at and its steps
 * inspected, but not changed, since dragging boxes and wiring exits needs a pointer and
 * room (DESIGN: "the editor may say that editing needs a larger screen").
 */
import { useStoreApi } from '@xyflow/react';
import { useEffect } from 'react';

/**
 * Stops the canvas from moving or wiring steps while still letting them be selected.
 * Set on React Flow's store rather than as props so the canvas itself stays as it is;
 * the canvas passes neither setting, so React Flow never overwrites them.
 */
export function LockCanvas({ locked }: { locked: boolean }) {
  const store = useStoreApi();
  useEffect(() => {
    store.setState({ nodesDraggable: !locked, nodesConnectable: !locked, edgesReconnectable: !locked, elementsSelectable: true });
  }, [store, locked]);
  return null;
}

export function ReadOnlyNote() {
  return (
    <p className="read-only-note" role="note" data-testid="editor.read-only">
      Editing needs a larger screen. Here you can look at the flow and open each step to read its settings.
    </p>
  );
}
