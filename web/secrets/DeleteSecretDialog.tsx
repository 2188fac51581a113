/**
 * Asks before a secret is deleted, naming the flows that use it: their runs fail at the
 * step that needs it until a secret of that name is stored again.
 */
import { FlowUseList, type SecretUser } from './FlowUseList.tsx';
import { SecretDialog } from './SecretDialog.tsx';
import { useDeleteSecret } from './useSecretMutations.ts';

export function DeleteSecretDialog({ name, usedBy, onClose }: { name: string; usedBy: readonly SecretUser[]; onClose(): void }) {
  const remove = useDeleteSecret(onClose);
  return (
    <SecretDialog title={`Delete ${name}?`} onClose={onClose} testId="secret-delete">
      <div className="secret-form">
        {usedBy.length > 0 ? (
          <>
            <p className="secret-form__warning">
              {usedBy.length === 1 ? 'This flow uses' : `These ${usedBy.length} flows use`} {name}. Their runs will fail at the step that needs it until a secret
              named {name} is stored again.
            </p>
            <FlowUseList users={usedBy} />
          </>
        ) : (
          <p className="secret-form__intro">No flow uses {name}. Deleting it cannot be undone; its value is gone for good.</p>
        )}
        {remove.error && (
          <p role="alert" className="secret-form__error">
            {remove.error.message}
          </p>
        )}
        <footer className="secret-dialog__foot">
          <button type="button" className="button-secondary" onClick={onClose} autoFocus>
            Keep it
          </button>
          <button type="button" className="button-danger" disabled={remove.isPending} onClick={() => remove.mutate({ name })}>
            {remove.isPending ? 'Deleting…' : 'Delete secret'}
          </button>
        </footer>
      </div>
    </SecretDialog>
  );
}
