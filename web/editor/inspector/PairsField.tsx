import { useId } from 'react';
import type { FlowProblem } from '../useStepProblems.ts';
import { FieldProblems } from './Fields.tsx';

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
}

/** Name/value rows: HTTP headers, transform outputs. */
export function PairsField({ legend, value, onChange, nameLabel, valueLabel, namePlaceholder, valuePlaceholder, addLabel, hint, keepOne, problems = [] }: PairsFieldProps) {
  const id = useId();
  const rows = entriesOf(value);
  const commit = (next: Array<[string, string]>) => onChange(next.length === 0 && !keepOne ? undefined : fromEntries(next));
  const setRow = (index: number, row: [string, string]) => commit(rows.map((existing, at) => (at === index ? row : existing)));

  return (
    <fieldset className="field pairs" aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend>{legend}</legend>
      {hint && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {rows.map(([name, item], index) => (
        <div className="pairs__row" key={index}>
          <input aria-label={`${nameLabel} ${index + 1}`} value={name} placeholder={namePlaceholder} className="mono" onChange={(event) => setRow(index, [event.target.value, item])} />
          <input aria-label={`${valueLabel} ${index + 1}`} value={item} placeholder={valuePlaceholder} className="mono" onChange={(event) => setRow(index, [name, event.target.value])} />
          <button
            type="button"
            className="icon-button"
            aria-label={`Remove ${nameLabel.toLowerCase()} ${index + 1}`}
            disabled={keepOne && rows.length === 1}
            onClick={() => commit(rows.filter((_row, at) => at !== index))}
          >
            ×
          </button>
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
