import { useMemo } from 'react';
import { suggestKeys, suggestKeysFrom } from '../sample-fields.ts';
import { useLoopFields } from '../useStepEditor.ts';
import { useKeyPreview } from '../useKeyPreview.ts';
import { isDefaultSample, useChosenSample } from '../chosen-sample.ts';
import type { StepEditor } from '../useStepEditor.ts';
import { TextField } from './Fields.tsx';

/**
 * The idempotency key of a side-effect step: the field itself (with the field picker),
 * the key it gives for the sample input, what is wrong with it in plain words, and
 * ready-made keys built from the sample's identifying fields.
 */
export function KeyField({ step, flowId }: { step: StepEditor; flowId: string }) {
  const template = step.text('key');
  const chosen = useChosenSample();
  const label = typeof step.data.label === 'string' ? step.data.label : step.node.id;
  // Inside a loop, keys from the item: one from the sample alone would be the same for every item.
  const loop = useLoopFields();
  const suggestions = useMemo(
    () => (loop ? suggestKeysFrom(loop.fields, label) : suggestKeys(chosen.input, label)).filter((key) => key !== template),
    [loop, chosen.input, label, template],
  );
  const forSample = isDefaultSample(chosen) ? 'the sample input' : `the sample “${chosen.name}”`;
  const preview = useKeyPreview(flowId, step.node, template);
  const result = preview.data;
  const lint = result?.lint ?? [];
  const stale = !preview.settled || preview.isFetching;

  return (
    <TextField
      label="Idempotency key"
      value={template}
      onChange={(value) => step.set('key', value)}
      placeholder="{{ trigger.body.order.id }}:create-invoice"
      mono
      picker
      testId="inspector.key"
      hint="A short text that is the same every time the same thing happens, like the order number. Onceflow does this step at most once for each key, however often the flow is retried or the event arrives."
    >
      <div className={`key-preview${stale ? ' is-stale' : ''}`} aria-live="polite" data-testid="key.preview">
        {template.trim() === '' && <span>Type a key, pick a field, or use a suggestion below to see the key for {forSample}.</span>}
        {template.trim() !== '' && result?.key !== undefined && (
          <span>
            For {forSample} this step's key is <code className="key-preview__key">{result.key}</code>
          </span>
        )}
        {template.trim() !== '' && result?.error !== undefined && <span className="key-preview__error">{result.error}</span>}
        {preview.error && <span className="key-preview__error">The key could not be checked right now: {preview.error.message}</span>}
      </div>
      {lint.length > 0 && template.trim() !== '' && (
        <ul className="key-lint" data-testid="key.lint">
          {lint.map((item) => (
            <li key={item.code} className={`key-lint__item key-lint__item--${item.severity}`}>
              <strong>{item.severity === 'error' ? 'Fix this: ' : 'Worth knowing: '}</strong>
              {item.message}
              {item.code === 'key_field_missing' && (
                <div className="key-lint__confirm">
                  <button
                    type="button"
                    className="button-secondary small"
                    data-testid="key.confirm-fields"
                    // Stores the exact text confirmed: editing the key asks again.
                    onClick={() => step.update((data) => ({ ...data, keyConfirmed: template }))}
                  >
                    This field will be there in real events
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {template.trim() !== '' && step.data.keyConfirmed === template && (
        <p className="field__hint" data-testid="key.confirmed">You confirmed that real events carry the fields this key uses, though the sample input lacks some.</p>
      )}
      {suggestions.length > 0 && (
        <div className="key-suggestions">
          <span className="key-suggestions__title">{template.trim() === '' ? 'Suggested keys' : 'Other keys you could use'}</span>
          {suggestions.map((suggestion) => (
            <button key={suggestion} type="button" className="chip mono" onClick={() => step.update((data) => ({ ...data, key: suggestion }))} aria-label={`Use the key ${suggestion}`}>
              {suggestion}
            </button>
          ))}
        </div>
      )}
    </TextField>
  );
}
