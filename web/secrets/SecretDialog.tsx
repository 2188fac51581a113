/**
 * A modal on the browser's own <dialog> for the secret forms, used on the Secrets page and
 * inside the editor (whose stylesheet does not carry the run pages' dialog styles): focus
 * stays inside, Escape and the backdrop close it.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import './secrets.css';

interface SecretDialogProps {
  title: string;
  onClose(): void;
  children: ReactNode;
  testId?: string;
}

export function SecretDialog({ title, onClose, children, testId }: SecretDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="secret-dialog"
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop lands on the dialog element itself.
        if (event.target === ref.current) onClose();
        // The dialog may sit inside the editor's panels, which must not see its clicks.
        event.stopPropagation();
      }}
      onKeyDown={(event) => event.stopPropagation()}
    >
      <div className="secret-dialog__panel">
        <header className="secret-dialog__head">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="secret-dialog__close" aria-label="Close" onClick={onClose}>×</button>
        </header>
        {children}
      </div>
    </dialog>
  );
}
