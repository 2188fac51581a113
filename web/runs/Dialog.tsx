/** A modal dialog on the browser's own <dialog>: focus stays inside, Escape closes it. */
import { useEffect, useRef, type ReactNode } from 'react';

interface DialogProps {
  title: string;
  onClose(): void;
  children: ReactNode;
  footer: ReactNode;
  testId?: string;
}

export function Dialog({ title, onClose, children, footer, testId }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="dialog-title"
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop lands on the dialog element itself.
        if (event.target === ref.current) onClose();
      }}
    >
      <div className="dialog__panel">
        <header className="dialog__head">
          <h2 id="dialog-title">{title}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>×</button>
        </header>
        <div className="dialog__body">{children}</div>
        <footer className="dialog__foot">{footer}</footer>
      </div>
    </dialog>
  );
}
