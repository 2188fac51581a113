import { useId } from 'react';
import { DURATION_PATTERN } from '../../../core/duration.ts';
import { FLOW_RUN, isSideEffectStep } from '../../../core/step-kinds.ts';
import { textOrUndefined } from '../data-path.ts';
import type { StepEditor } from '../useStepEditor.ts';
import { FieldProblems, Section, Switch, TextField } from './Fields.tsx';
import { KeyField } from './KeyField.tsx';

const KEY_TTL_DEFAULT = '30d';
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const RECEIVER_KINDS: readonly string[] = ['http.request', 'message.post'];

/** How long `text` lasts, or null when it is not a length of time (same rules as the engine). */
function durationMs(text: string): number | null {
  const match = DURATION_PATTERN.exec(text.trim());
  return match ? Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0) : null;
}

function expiryText(ttl: string): string {
  const ms = durationMs(ttl);
  if (ms === null) return 'Write a number followed by m, h or d, like 12h or 30d.';
  const date = new Date(Date.now() + ms);
  const when = date.toLocaleString(undefined, { dateStyle: 'long', ...(ms < 86_400_000 ? { timeStyle: 'short' } : {}) });
  return `A key made now would be kept until ${when}. After that, the same key would act again.`;
}

/** Whether the step changes the outside world, and everything that keeps it to once. */
export function SideEffectSection({ step, flowId }: { step: StepEditor; flowId: string }) {
  // Starting a run is our own write, never uncertain: only its key is the person's to choose.
  if (step.node.type === FLOW_RUN.type) {
    return (
      <Section title="Doing it once">
        <p className="field__hint">The key claims the run this step starts: however often this flow is rerun or replayed, one run of the other flow is started per key, and later runs wait for it or take its result.</p>
        <KeyField step={step} flowId={flowId} />
      </Section>
    );
  }
  return <SideEffectSettings step={step} flowId={flowId} />;
}

function SideEffectSettings({ step, flowId }: { step: StepEditor; flowId: string }) {
  const on = isSideEffectStep({ type: step.node.type ?? '', data: step.data });
  const header = step.text('receiverKeyHeader');
  const honours = step.get('receiverKeyHeader') !== undefined;
  const onUncertain = step.text('onUncertain') || 'review';
  const ttl = step.text('keyTtl');
  const retryMax = step.get('retry.max');
  const radioName = useId();

  return (
    <Section title="Doing it once">
      <Switch
        label="Has side effects"
        checked={on}
        onChange={(checked) => step.set('sideEffect', checked)}
        testId="inspector.side-effect"
        description="Turn this on when the step changes something outside Onceflow — sends an email, creates an invoice, charges a card — so that it happens only once, even when the flow is retried or the same event arrives twice."
      />
      {!on && <FieldProblems problems={step.problemsAt('key')} />}
      {on && (
        <>
          <KeyField step={step} flowId={flowId} />
          {RECEIVER_KINDS.includes(step.node.type ?? '') && (
            <div className="subsection">
              <Switch
                label="The receiving service honours idempotency keys"
                checked={honours}
                onChange={(checked) => step.set('receiverKeyHeader', checked ? header || 'Idempotency-Key' : undefined)}
                description="Many payment and business services accept a key with each request and ignore a repeat with the same key. When the service does, Onceflow sends the key along, so an unclear outcome can safely be tried again."
              />
              {honours && (
                <TextField
                  label="Header name"
                  value={header}
                  onChange={(value) => step.set('receiverKeyHeader', value)}
                  placeholder="Idempotency-Key"
                  mono
                  hint="The name the service's documentation gives for its idempotency key header."
                  problems={step.problemsAt('receiverKeyHeader')}
                />
              )}
            </div>
          )}
          <fieldset className="subsection choice-group">
            <legend>If the outcome is unknown</legend>
            <p className="field__hint">
              Sometimes Onceflow cannot tell whether the service did the work — for example when the connection drops right after the request was sent.
              {honours && ' Because this service honours keys, Onceflow first tries again with the same key, which is safe.'}
            </p>
            <label className="choice">
              <input type="radio" name={radioName} value="review" checked={onUncertain === 'review'} onChange={() => step.set('onUncertain', 'review')} />
              <span>
                <strong>Ask me</strong> — the run pauses and asks you whether it happened. Nothing is done twice. (Recommended)
              </span>
            </label>
            <label className="choice">
              <input type="radio" name={radioName} value="retry" checked={onUncertain === 'retry'} onChange={() => step.set('onUncertain', 'retry')} />
              <span>
                <strong>Try again</strong> — Onceflow does it again. Choose this only if doing it twice would be harmless.
              </span>
            </label>
          </fieldset>
          <details className="advanced">
            <summary>Advanced</summary>
            <TextField
              label="Key scope"
              value={step.text('keyScope')}
              onChange={(value) => step.set('keyScope', textOrUndefined(value))}
              placeholder="This step only (default)"
              mono
              hint="Steps with the same scope share their keys: if two flows both create invoices, give both the scope “invoices” so one never repeats what the other already did."
              problems={step.problemsAt('keyScope')}
            />
            <TextField
              label="How long the key is kept"
              value={ttl}
              onChange={(value) => step.set('keyTtl', textOrUndefined(value))}
              placeholder={`${KEY_TTL_DEFAULT} (default)`}
              mono
              hint={expiryText(ttl || KEY_TTL_DEFAULT)}
              problems={step.problemsAt('keyTtl')}
            />
            <TextField
              label="Retries when the service is busy or unreachable"
              type="number"
              value={typeof retryMax === 'number' ? String(retryMax) : ''}
              onChange={(value) =>
                step.set('retry', value === '' ? undefined : { backoff: 'exponential', ...(step.get('retry') as object | undefined), max: Math.max(0, Math.min(10, Math.round(Number(value)))) })
              }
              placeholder="Default"
              hint="How many more times to try, waiting longer each time (0 to 10). Retries always use the same key."
              problems={step.problemsAt('retry')}
            />
          </details>
        </>
      )}
    </Section>
  );
}
