import { useId, useRef, useState } from 'react';
import type { FlowProblem } from '../useStepProblems.ts';
import { FieldProblems } from './Fields.tsx';
import { SecretPicker } from './SecretPicker.tsx';

type Pairs = Record<string, string>;

function entriesOf(value: unknown): Array<[string, string]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).map(([name, item]) => [name, typeof item === 'string' ? item : String(item)]);
}

/** Rebuilt from rows, so renaming a row keeps its place. */
function fromEntries(entries: ReadonlyArray<[string, string]>): Pairs {
  const out: Pairs = {};
  for (const [name, value] of entries) out[name] = value;
  return out;
}

interface PairsFieldProps {
  legend: string;
  value: unknown;
  onChange(value: Pairs | undefined): void;
  nameLabel: string;
  valueLabel: string;
  namePlaceholder?: string;
  valuePlaceholder?: string;
  addLabel: string;
  hint?: string;
  /** Keep at least one row (transform outputs), instead of removing the field when empty. */
  keepOne?: boolean;
  problems?: readonly FlowProblem[];
  /** Offers the stored secrets' names for each value (an Authorization header's token). */
  secrets?: boolean;
}

/** Name/value rows: HTTP headers, transform outputs. */
export function PairsField({ legend, value, onChange, nameLabel, valueLabel, namePlaceholder, valuePlaceholder, addLabel, hint, keepOne, problems = [], secrets }: PairsFieldProps) {
  const id = useId();
  const rows = entriesOf(value);
  const commit = (next: Array<[string, string]>) => onChange(next.length === 0 && !keepOne ? undefined : fromEntries(next));
  const setRow = (index: number, row: [string, string]) => commit(rows.map((existing, at) => (at === index ? row : existing)));
  // The row whose secret list is open, and each row's value input, to insert at its cursor.
  const [picking, setPicking] = useState<number | null>(null);
  const valueInputs = useRef(new Map<number, HTMLInputElement>());

  const insertSecret = (index: number, placeholder: string) => {
    const [name, item] = rows[index] ?? ['', ''];
    const element = valueInputs.current.get(index);
    const start = element?.selectionStart ?? item.length;
    const end = element?.selectionEnd ?? item.length;
    setRow(index, [name, item.slice(0, start) + placeholder + item.slice(end)]);
    setPicking(null);
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(start + placeholder.length, start + placeholder.length);
    });
  };

  return (
    <fieldset className="field pairs" aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend>{legend}</legend>
      {hint && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {rows.map(([name, item], index) => (
        <div className={secrets ? 'pairs__row pairs__row--secrets' : 'pairs__row'} key={index}>
          <input aria-label={`${nameLabel} ${index + 1}`} value={name} placeholder={namePlaceholder} className="mono" onChange={(event) => setRow(index, [event.target.value, item])} />
          <input
            aria-label={`${valueLabel} ${index + 1}`}
            value={item}
            placeholder={valuePlaceholder}
            className="mono"
            onChange={(event) => setRow(index, [name, event.target.value])}
            ref={(element) => {
              if (element) valueInputs.current.set(index, element);
              else valueInputs.current.delete(index);
            }}
          />
          {secrets && (
            <button
              type="button"
              className="icon-button"
              aria-label={`Insert secret into ${valueLabel.toLowerCase()} ${index + 1}`}
              aria-expanded={picking === index}
              title="Insert a stored secret"
              onClick={() => setPicking((open) => (open === index ? null : index))}
            >
              <KeyIcon />
            </button>
          )}
          <button
            type="button"
            className="icon-button"
            aria-label={`Remove ${nameLabel.toLowerCase()} ${index + 1}`}
            disabled={keepOne && rows.length === 1}
            onClick={() => {
              setPicking(null);
              commit(rows.filter((_row, at) => at !== index));
            }}
          >
            ×
          </button>
          {picking === index && (
            <div className="pairs__secrets">
              <SecretPicker label={`Secrets you can insert into ${valueLabel.toLowerCase()} ${index + 1}`} onPick={(placeholder) => insertSecret(index, placeholder)} />
            </div>
          )}
        </div>
      ))}
      <button type="button" className="link-button" onClick={() => commit([...rows, [uniqueName(rows), '']])}>
        + {addLabel}
      </button>
      <FieldProblems problems={problems} />
    </fieldset>
  );
}

function uniqueName(rows: ReadonlyArray<[string, string]>): string {
  const taken = new Set(rows.map(([name]) => name));
  if (!taken.has('')) return '';
  for (let n = 2; ; n++) if (!taken.has(`name${n}`)) return `name${n}`;
}

function KeyIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <circle cx="5" cy="8" r="3" fill="none" stroke="currentColor" strokeWidth="1.6" />
      <path d="M8 8h7M12.5 8v2.5M14.5 8v2" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </svg>
  );
}
