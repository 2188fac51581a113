/**
 * The Secrets page: every stored secret's name, when it last changed and which flows use
 * it; add, replace and delete. Values are write-only: the server never sends one back, so
 * nothing here can show one. Names that flows use but that are not stored are listed too,
 * since those flows fail until they are added.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { dateFormat } from '../lib/date-format.ts';
import { trpc } from '../lib/trpc.ts';
import { DeleteSecretDialog } from './DeleteSecretDialog.tsx';
import { FlowUseList, type SecretUser } from './FlowUseList.tsx';
import { SecretFormDialog } from './SecretFormDialog.tsx';
import './secrets.css';

type Open =
  | { dialog: 'add'; name?: string }
  | { dialog: 'replace'; name: string }
  | { dialog: 'delete'; name: string; usedBy: readonly SecretUser[] }
  | null;

const changedAt = dateFormat({ dateStyle: 'medium', timeStyle: 'short' });

export function SecretsPage() {
  const overview = useQuery(trpc.secretAdmin.list.queryOptions());
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);
  const secrets = overview.data?.secrets ?? [];
  const missing = overview.data?.missing ?? [];

  return (
    <section aria-labelledby="secrets-heading" className="list-page secrets-page">
      <div className="page-head">
        <h1 id="secrets-heading">Secrets</h1>
        <button type="button" onClick={() => setOpen({ dialog: 'add' })}>
          Add a secret
        </button>
      </div>
      <p className="secrets-page__intro">
        Passwords, tokens and keys that flows use as <code>{'{{ secrets.NAME }}'}</code>. Values are stored encrypted and can be replaced but never
        read back: not here, not in runs and not in logs.
      </p>
      {overview.isPending && <p>Loading secrets…</p>}
      {overview.error && (
        <p role="alert" className="error">
          The secrets could not be loaded: {overview.error.message}
        </p>
      )}
      {overview.data && secrets.length === 0 && <p className="empty">No secrets yet. Add one, then pick it in a step’s settings.</p>}
      {secrets.length > 0 && (
        <ul className="secret-cards" aria-label="Stored secrets">
          {secrets.map((secret) => (
            <li key={secret.name} className="secret-card" data-testid="secret.card" aria-labelledby={`secret-${secret.name}`}>
              <h2 id={`secret-${secret.name}`} className="secret-card__name">
                {secret.name}
              </h2>
              <p className="secret-card__changed">Changed {changedAt(secret.updatedAt)}</p>
              <div className="secret-card__uses">
                {secret.usedBy.length === 0 ? (
                  <p className="secret-card__unused">Not used by any flow.</p>
                ) : (
                  <>
                    <p className="secret-card__label">Used by</p>
                    <FlowUseList users={secret.usedBy} />
                  </>
                )}
              </div>
              <div className="secret-card__actions">
                <button type="button" className="button-secondary" onClick={() => setOpen({ dialog: 'replace', name: secret.name })}>
                  Replace value<span className="visually-hidden"> of {secret.name}</span>
                </button>
                <button type="button" className="button-secondary button-secondary--danger" onClick={() => setOpen({ dialog: 'delete', name: secret.name, usedBy: secret.usedBy })}>
                  Delete<span className="visually-hidden"> {secret.name}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {missing.length > 0 && (
        <section className="secrets-missing" aria-labelledby="secrets-missing-heading">
          <h2 id="secrets-missing-heading">Used by flows but not stored</h2>
          <p className="secrets-page__intro">Runs of these flows fail at the step that needs the secret until it is added.</p>
          <ul className="secret-cards" aria-label="Secrets that are not stored">
            {missing.map((secret, index) => (
              <li key={secret.name} className="secret-card secret-card--missing" data-testid="secret.missing" aria-labelledby={`missing-${index}`}>
                <h3 id={`missing-${index}`} className="secret-card__name">
                  {secret.name}
                </h3>
                <div className="secret-card__uses">
                  <p className="secret-card__label">Used by</p>
                  <FlowUseList users={secret.usedBy} />
                </div>
                <div className="secret-card__actions">
                  <button type="button" onClick={() => setOpen({ dialog: 'add', name: secret.name })}>
                    Add<span className="visually-hidden"> {secret.name}</span>
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
      {open?.dialog === 'add' && <SecretFormDialog suggestedName={open.name} onClose={close} />}
      {open?.dialog === 'replace' && <SecretFormDialog replacing={open.name} onClose={close} />}
      {open?.dialog === 'delete' && <DeleteSecretDialog name={open.name} usedBy={open.usedBy} onClose={close} />}
    </section>
  );
}
