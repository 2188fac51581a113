/**
 * Adds a secret or replaces one's value. The value field is a password field that starts
 * empty every time: a stored value is never sent to the browser, so there is nothing to
 * show, and what was typed is dropped when the dialog closes.
 */
import { useId, useState, type FormEvent } from 'react';
import { SecretDialog } from './SecretDialog.tsx';
import { useSaveSecret } from './useSecretMutations.ts';

interface SecretFormDialogProps {
  /** Replace the value of this secret; without it, the dialog adds a new one. */
  replacing?: string;
  /** A name to start from when adding (a name a flow uses that is not stored yet). */
  suggestedName?: string;
  onClose(): void;
  onSaved?(name: string): void;
}

export function SecretFormDialog({ replacing, suggestedName = '', onClose, onSaved }: SecretFormDialogProps) {
  const id = useId();
  const [name, setName] = useState(replacing ?? suggestedName);
  const [value, setValue] = useState('');
  const save = useSaveSecret((saved) => {
    onSaved?.(saved);
    onClose();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Submitted from inside the editor, the form must not reach any form around it.
    event.stopPropagation();
    save.mutate({ name: name.trim(), value, replace: replacing !== undefined });
  };

  return (
    <SecretDialog title={replacing ? `Replace the value of ${replacing}` : 'New secret'} onClose={onClose} testId="secret-form">
      <form className="secret-form" onSubmit={submit}>
        <p className="secret-form__intro">
          {replacing
            ? 'Type the new value. Flows that use this secret use the new value from their next step on.'
            : 'Stored encrypted. Flows use it as {{ secrets.NAME }}; the value is never shown again, not here and not in any run.'}
        </p>
        {!replacing && (
          <div className="secret-form__field">
            <label htmlFor={`${id}-name`}>Name</label>
            <input
              id={`${id}-name`}
              value={name}
              onChange={(event) => setName(event.target.value)}
              className="mono"
              autoComplete="off"
              spellCheck={false}
              aria-describedby={`${id}-name-hint`}
              placeholder="API_TOKEN"
              autoFocus
              required
            />
            <p className="secret-form__hint" id={`${id}-name-hint`}>
              Capital letters, digits and underscores, starting with a letter.
            </p>
          </div>
        )}
        <div className="secret-form__field">
          <label htmlFor={`${id}-value`}>{replacing ? 'New value' : 'Value'}</label>
          <input
            id={`${id}-value`}
            type="password"
            value={value}
            onChange={(event) => setValue(event.target.value)}
            autoComplete="new-password"
            spellCheck={false}
            autoFocus={Boolean(replacing)}
            required
          />
        </div>
        {save.error && (
          <p role="alert" className="secret-form__error">
            {save.error.message}
          </p>
        )}
        <footer className="secret-dialog__foot">
          <button type="button" className="button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : replacing ? 'Replace value' : 'Save secret'}
          </button>
        </footer>
      </form>
    </SecretDialog>
  );
}
