import { useState } from 'react';
import { replaceableTrigger } from '../add-kind.ts';
import { textOrUndefined } from '../data-path.ts';
import type { EditorState } from '../editor-state.ts';
import { useEditorStore } from '../useEditorStore.ts';
import type { StepEditor } from '../useStepEditor.ts';
import { SelectField, TextField } from './Fields.tsx';

// A boolean, so moving steps around does not re-render the form.
const selectCanSwapTrigger = (state: Pick<EditorState, 'nodes'>) => replaceableTrigger(state) !== null;

export function ManualTriggerForm() {
  const swappable = useEditorStore(selectCanSwapTrigger);
  return (
    <p className="inspector-note">
      This flow starts when you press <strong>Run</strong>. It receives the sample input as its data, so everything you see in the previews is
      what the run will use.
      {swappable && (
        <>
          {' '}
          To start it another way, choose <strong>Webhook trigger</strong> or <strong>Schedule trigger</strong> in the list of steps: it takes
          this trigger’s place.
        </>
      )}
    </p>
  );
}

const SIGNATURE_SCHEMES = [
  { value: '', label: 'No signature check' },
  { value: 'standard-webhooks', label: 'Standard Webhooks (webhook-signature header)' },
  { value: 'stripe', label: 'Stripe (Stripe-Signature header)' },
  { value: 'hmac-sha256', label: 'HMAC SHA-256 of the body' },
] as const;

export function WebhookTriggerForm({ step, hookId }: { step: StepEditor; hookId?: string }) {
  const scheme = step.text('signature.scheme');
  const address = hookId ? `${window.location.origin}/hooks/${hookId}` : null;
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    if (!address) return;
    await navigator.clipboard?.writeText(address).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <>
      <div className="field">
        <span className="field__label">Address to send events to</span>
        {address ? (
          <div className="copy-row">
            <code className="mono" data-testid="webhook.address">{address}</code>
            <button type="button" className="button-secondary small" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
        ) : (
          <p className="field__hint">Publish the flow to get its address.</p>
        )}
      </div>
      <TextField
        label="Event id"
        value={step.text('eventId')}
        onChange={(value) => step.set('eventId', value)}
        mono
        picker
        placeholder="{{ trigger.body.id }}"
        hint="What tells one delivery from another. Services send the same event again when they are unsure it arrived; Onceflow starts only one run per event id."
        problems={step.problemsAt('eventId')}
      />
      <SelectField
        label="Check the sender's signature"
        value={scheme as (typeof SIGNATURE_SCHEMES)[number]['value']}
        options={SIGNATURE_SCHEMES}
        onChange={(value) =>
          step.set('signature', value === '' ? undefined : { ...(step.get('signature') as object | undefined), scheme: value, secret: step.text('signature.secret') })
        }
        hint="A signature proves the event really comes from the service. Its documentation names the scheme and gives you a signing secret."
        problems={step.problemsAt('signature.scheme')}
      />
      {scheme !== '' && (
        <>
          <TextField
            label="Signing secret"
            value={step.text('signature.secret')}
            onChange={(value) => step.set('signature.secret', value)}
            mono
            placeholder="{{ secrets.SHOP_WEBHOOK_SECRET }}"
            hint="Store the secret under Secrets and name it here, so it never appears in the flow."
            problems={step.problemsAt('signature.secret')}
          />
          {scheme === 'hmac-sha256' && (
            <TextField
              label="Signature header"
              value={step.text('signature.header')}
              onChange={(value) => step.set('signature.header', textOrUndefined(value))}
              mono
              placeholder="X-Signature"
              problems={step.problemsAt('signature.header')}
            />
          )}
        </>
      )}
    </>
  );
}

const CRON_PRESETS = [
  { value: '*/15 * * * *', label: 'Every 15 minutes' },
  { value: '0 * * * *', label: 'Every hour' },
  { value: '0 9 * * *', label: 'Every day at 9:00' },
  { value: '0 9 * * 1', label: 'Every Monday at 9:00' },
  { value: '0 9 1 * *', label: 'On the 1st of every month at 9:00' },
] as const;

export function ScheduleTriggerForm({ step }: { step: StepEditor }) {
  const cron = step.text('cron');
  const preset = CRON_PRESETS.find((option) => option.value === cron)?.value ?? '';
  return (
    <>
      <SelectField
        label="How often"
        value={preset}
        options={[...CRON_PRESETS, { value: '', label: 'Something else (write a cron expression)' }]}
        onChange={(value) => value && step.set('cron', value)}
      />
      <TextField
        label="Schedule (cron)"
        value={cron}
        onChange={(value) => step.set('cron', value)}
        mono
        placeholder="0 9 * * 1"
        hint="Minute, hour, day of month, month and day of week. “0 9 * * 1” means every Monday at 9:00."
        problems={step.problemsAt('cron')}
      />
      <TextField
        label="Time zone"
        value={step.text('timezone')}
        onChange={(value) => step.set('timezone', textOrUndefined(value))}
        placeholder={Intl.DateTimeFormat().resolvedOptions().timeZone}
        hint="Leave empty to use the server's time zone."
        problems={step.problemsAt('timezone')}
      />
    </>
  );
}
