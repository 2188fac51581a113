/**
 * Under a URL field: the sandbox's receivers, one click from being the address. A person
 * trying Onceflow finds the stand-in payments, CRM and chat services here instead of in
 * the README (the list comes from the server, so the addresses are this server's own).
 */
import './sandbox-suggestions.css';
import { useId, useState } from 'react';
import { useSandboxAddresses, type SandboxAddresses } from '../useSandboxAddresses.ts';

export type SandboxReceiver = SandboxAddresses['receivers'][number];

interface SandboxSuggestionsProps {
  /** The field's label, naming the list for screen readers. */
  field: string;
  /** Only this receiver's addresses (a chat webhook field offers only the chat). */
  only?: SandboxReceiver['receiver'];
  onPick(receiver: SandboxReceiver): void;
}

export function SandboxSuggestions({ field, only, onPick }: SandboxSuggestionsProps) {
  const sandbox = useSandboxAddresses();
  const [open, setOpen] = useState(false);
  const listId = useId();
  const receivers = sandbox?.receivers.filter((receiver) => only === undefined || receiver.receiver === only) ?? [];
  if (receivers.length === 0) return null;
  return (
    <div className="sandbox-suggestions">
      <button type="button" className="link-button" aria-expanded={open} aria-controls={open ? listId : undefined} onClick={() => setOpen((shown) => !shown)}>
        {open ? 'Hide sandbox addresses' : 'Sandbox addresses'}
      </button>
      {open && (
        <ul className="sandbox-suggestions__list" id={listId} aria-label={`Sandbox addresses for ${field}`}>
          {receivers.map((receiver) => (
            <li key={receiver.url}>
              <button
                type="button"
                className="sandbox-suggestion"
                onClick={() => {
                  onPick(receiver);
                  setOpen(false);
                }}
              >
                <span className="sandbox-suggestion__label">{receiver.label}</span>
                <code className="sandbox-suggestion__url">{receiver.url}</code>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
