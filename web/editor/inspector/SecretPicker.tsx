/**
 * The stored secrets' names under a field that takes one: clicking a name inserts
 * `{{ secrets.NAME }}`, and "New secret…" stores one without leaving the editor, then
 * inserts it. Only names travel to the browser; values never do.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { followLink } from '../../lib/router.ts';
import { trpc } from '../../lib/trpc.ts';
import { SecretFormDialog } from '../../secrets/SecretFormDialog.tsx';

export const secretPlaceholder = (name: string) => `{{ secrets.${name} }}`;

export function SecretPicker({ label, onPick }: { label: string; onPick(placeholder: string): void }) {
  const secrets = useQuery(trpc.secrets.list.queryOptions());
  const [adding, setAdding] = useState(false);
  return (
    <div className="secret-picker" role="group" aria-label={label} data-testid="secret-picker">
      <p className="secret-picker__title">Stored secrets</p>
      {secrets.isPending && <p className="secret-picker__empty">Loading…</p>}
      {secrets.error && <p className="secret-picker__empty" role="alert">The secrets could not be loaded: {secrets.error.message}</p>}
      {secrets.data?.length === 0 && <p className="secret-picker__empty">No secrets are stored yet.</p>}
      {secrets.data && secrets.data.length > 0 && (
        <ul className="secret-picker__names">
          {secrets.data.map((secret) => (
            <li key={secret.name}>
              <button type="button" className="secret-picker__name" title={`Insert ${secretPlaceholder(secret.name)}`} onClick={() => onPick(secretPlaceholder(secret.name))} data-testid="secret-picker.item">
                {secret.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="secret-picker__actions">
        <button type="button" className="link-button" onClick={() => setAdding(true)}>
          New secret…
        </button>
        <a
          href="/secrets"
          onClick={followLink('/secrets')}
        >
          Manage secrets
        </a>
      </div>
      {adding && <SecretFormDialog onClose={() => setAdding(false)} onSaved={(name) => onPick(secretPlaceholder(name))} />}
    </div>
  );
}
