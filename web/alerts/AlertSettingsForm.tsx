/**
 * The alert settings form, shared by a flow's Alerts tab in the editor and the default
 * alerts page. It edits a plain form value; the owner decides when to save it.
 */
import { useId, type ReactNode } from 'react';
import type { AlertForm } from './alert-form.ts';
import './alerts.css';

interface Props {
  form: AlertForm;
  onChange(form: AlertForm): void;
  readOnly?: boolean;
  /** Problems the server found, by field path (e.g. `chat.url`). */
  problems?: ReadonlyMap<string, string[]>;
}

export function AlertSettingsForm({ form, onChange, readOnly = false, problems = new Map() }: Props) {
  const set = <K extends keyof AlertForm>(key: K, value: AlertForm[K]) => onChange({ ...form, [key]: value });
  const text = (key: keyof AlertForm, label: string, options: { hint?: ReactNode; placeholder?: string; path?: string; type?: string } = {}) => (
    <TextInput
      label={label}
      value={String(form[key])}
      onChange={(value) => set(key, value as never)}
      readOnly={readOnly}
      hint={options.hint}
      placeholder={options.placeholder}
      problems={options.path ? problems.get(options.path) ?? [] : []}
      type={options.type}
    />
  );
  return (
    <div className="alert-form" data-testid="alerts.form">
      <Check label="Send alerts" checked={form.enabled} onChange={(value) => set('enabled', value)} readOnly={readOnly} />
      {form.enabled && (
        <>
          <fieldset className="alert-form__group">
            <legend>Tell someone when</legend>
            <Check label="a run fails" checked={form.failed} onChange={(value) => set('failed', value)} readOnly={readOnly} />
            <Check label="a run needs review" checked={form.needsReview} onChange={(value) => set('needsReview', value)} readOnly={readOnly} />
            <Check label="webhook deliveries are refused too often" checked={form.refusals} onChange={(value) => set('refusals', value)} readOnly={readOnly} />
            {form.refusals && (
              <div className="alert-form__row">
                {text('refusalsOver', 'More than (deliveries)', { path: 'on.webhookRefusals.over', type: 'number' })}
                {text('refusalsWithin', 'Within', { path: 'on.webhookRefusals.within', hint: 'Like 5m, 1h or 1d.' })}
              </div>
            )}
            <p className="field__hint">A run that fails is alerted once, also after reruns. When more than 3 runs of one flow fail within 5 minutes, the rest come together, at most one message a minute.</p>
          </fieldset>
          <fieldset className="alert-form__group">
            <legend>Chat</legend>
            {text('chatUrl', 'Incoming webhook address', {
              path: 'chat.url',
              placeholder: 'https://hooks.slack.com/services/…',
              hint: <>A Slack-compatible incoming webhook. Store it as a secret and write <code>{'{{ secrets.NAME }}'}</code> to keep it out of the flow.</>,
            })}
            {text('chatKeyHeader', 'Key header (optional)', {
              path: 'chat.keyHeader',
              placeholder: 'Idempotency-Key',
              hint: 'Only when the receiver drops a repeated key: then an alert cut short by a crash is sent again safely instead of being marked uncertain.',
            })}
          </fieldset>
          <fieldset className="alert-form__group">
            <legend>Email</legend>
            {text('emailTo', 'Send to', { path: 'email.to', placeholder: 'ops@example.com', type: 'email' })}
            <div className="alert-form__row">
              {text('smtpHost', 'Mail server (SMTP)', { path: 'email.smtp.host', placeholder: 'smtp.example.com' })}
              {text('smtpPort', 'Port', { path: 'email.smtp.port' })}
            </div>
            <div className="alert-form__row">
              {text('smtpUser', 'User (optional)')}
              {text('smtpPassword', 'Password (optional)', { hint: <>Write <code>{'{{ secrets.NAME }}'}</code>: the password stays in the secret store.</> })}
            </div>
          </fieldset>
        </>
      )}
    </div>
  );
}

function Check({ label, checked, onChange, readOnly }: { label: string; checked: boolean; onChange(value: boolean): void; readOnly: boolean }) {
  return (
    <label className="alert-form__check">
      <input type="checkbox" checked={checked} disabled={readOnly} onChange={(event) => onChange(event.target.checked)} />
      <span>{label}</span>
    </label>
  );
}

interface TextInputProps {
  label: string;
  value: string;
  onChange(value: string): void;
  readOnly: boolean;
  hint?: ReactNode;
  placeholder?: string | undefined;
  problems: readonly string[];
  type?: string | undefined;
}

function TextInput({ label, value, onChange, readOnly, hint, placeholder, problems, type }: TextInputProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type === 'number' ? 'text' : 'text'}
        inputMode={type === 'number' ? 'numeric' : type === 'email' ? 'email' : undefined}
        value={value}
        readOnly={readOnly}
        placeholder={placeholder}
        aria-invalid={problems.length > 0 || undefined}
        aria-describedby={hint ? hintId : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {hint && <p className="field__hint" id={hintId}>{hint}</p>}
      {problems.map((problem) => (
        <p key={problem} className="alert-form__problem">{problem}</p>
      ))}
    </div>
  );
}
