/**
 * The inspector's form controls. Every control has a visible label tied to it, an
 * optional hint in plain words, and shows the problems the server found in its field.
 */
import { useId, useRef, useState, type ReactNode } from 'react';
import type { FlowProblem } from '../useStepProblems.ts';
import { withoutStepName } from '../useStepProblems.ts';
import { FieldPicker } from './FieldPicker.tsx';
import { SecretPicker } from './SecretPicker.tsx';

export function FieldProblems({ problems }: { problems: readonly FlowProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="field-problems">
      {problems.map((problem) => (
        <li key={`${problem.code}:${problem.message}`} className={`field-problem field-problem--${problem.severity}`}>
          {withoutStepName(problem.message)}
        </li>
      ))}
    </ul>
  );
}

interface TextFieldProps {
  label: string;
  value: string;
  onChange(value: string): void;
  hint?: ReactNode;
  placeholder?: string;
  problems?: readonly FlowProblem[];
  multiline?: boolean | number;
  mono?: boolean;
  /** Offers the field picker, which inserts `{{ … }}` placeholders at the cursor. */
  picker?: boolean;
  /** Offers the stored secrets' names (and "New secret…"), for fields that take a password, token or key. */
  secrets?: boolean;
  type?: 'text' | 'password' | 'number' | 'url' | 'email';
  testId?: string;
  children?: ReactNode;
}

export function TextField({ label, value, onChange, hint, placeholder, problems = [], multiline, mono, picker, secrets, type = 'text', testId, children }: TextFieldProps) {
  const id = useId();
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [picking, setPicking] = useState(false);
  const invalid = problems.some((problem) => problem.severity === 'error');

  const insert = (placeholder: string) => {
    const element = ref.current;
    const start = element?.selectionStart ?? value.length;
    const end = element?.selectionEnd ?? value.length;
    const next = value.slice(0, start) + placeholder + value.slice(end);
    onChange(next);
    setPicking(false);
    // Put the cursor after what was inserted, so typing continues from there.
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(start + placeholder.length, start + placeholder.length);
    });
  };

  const common = {
    id,
    ref,
    value,
    placeholder,
    className: mono ? 'mono' : undefined,
    'aria-invalid': invalid || undefined,
    'aria-describedby': hint ? `${id}-hint` : undefined,
    'data-testid': testId,
    spellCheck: mono ? false : undefined,
  };
  return (
    <div className="field">
      <div className="field__head">
        <label htmlFor={id}>{label}</label>
        {picker && (
          <button type="button" className="link-button" aria-expanded={picking} aria-label={`Insert a field into ${label}`} onClick={() => setPicking((open) => !open)}>
            {picking ? 'Close fields' : '+ Insert field'}
          </button>
        )}
        {secrets && !picker && (
          <button type="button" className="link-button" aria-expanded={picking} aria-label={`${picking ? 'Close secrets' : 'Insert secret'} for ${label}`} onClick={() => setPicking((open) => !open)}>
            {picking ? 'Close secrets' : '+ Insert secret'}
          </button>
        )}
      </div>
      {hint && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {multiline ? (
        <textarea {...common} rows={typeof multiline === 'number' ? multiline : 4} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input {...common} type={type} onChange={(event) => onChange(event.target.value)} />
      )}
      {picking && picker && <FieldPicker onPick={insert} label={`Fields you can insert into ${label}`} />}
      {picking && secrets && <SecretPicker onPick={insert} label={`Secrets you can insert into ${label}`} />}
      {children}
      <FieldProblems problems={problems} />
    </div>
  );
}

interface SelectFieldProps<T extends string> {
  label: string;
  value: T;
  options: ReadonlyArray<{ value: T; label: string }>;
  onChange(value: T): void;
  hint?: ReactNode;
  problems?: readonly FlowProblem[];
}

export function SelectField<T extends string>({ label, value, options, onChange, hint, problems = [] }: SelectFieldProps<T>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as T)} aria-describedby={hint ? `${id}-hint` : undefined}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {hint && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <FieldProblems problems={problems} />
    </div>
  );
}

interface SwitchProps {
  label: string;
  checked: boolean;
  onChange(checked: boolean): void;
  description?: ReactNode;
  testId?: string;
}

/** An on/off setting, announced as a switch, with the sentence that explains it. */
export function Switch({ label, checked, onChange, description, testId }: SwitchProps) {
  const id = useId();
  return (
    <div className="switch-field">
      <label className="switch" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          role="switch"
          checked={checked}
          onChange={(event) => onChange(event.target.checked)}
          aria-describedby={description ? `${id}-desc` : undefined}
          data-testid={testId}
        />
        <span className="switch__track" aria-hidden="true" />
        <span className="switch__label">{label}</span>
      </label>
      {description && (
        <p className="field__hint" id={`${id}-desc`}>
          {description}
        </p>
      )}
    </div>
  );
}

export function Section({ title, children, aside }: { title: string; children: ReactNode; aside?: ReactNode }) {
  const id = useId();
  return (
    <section className="inspector-section" aria-labelledby={id}>
      <div className="inspector-section__head">
        <h3 id={id}>{title}</h3>
        {aside}
      </div>
      {children}
    </section>
  );
}
