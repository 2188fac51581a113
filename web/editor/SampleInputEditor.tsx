import { useId, useState } from 'react';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { dispatch, selectMeta, useEditorStore } from './useEditorStore.ts';

type Sample = FlowDocument['sampleInput'];

const show = (sample: Sample) => (sample === undefined ? '' : JSON.stringify(sample, null, 2));

/** Where in the text a JSON error is, in words: "line 3, column 5". */
function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = /position (\d+)/.exec(message);
  if (!at) return 'Check for a missing comma, quote or bracket.';
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `Look near line ${line}, column ${column}: a comma, quote or bracket may be missing or extra.`;
}

/**
 * The flow's sample input: what a run receives as `trigger.body` in previews and the
 * field picker, and what Run sends. Only valid JSON reaches the flow, so a half-typed
 * sample is never saved.
 */
export function SampleInputEditor() {
  const id = useId();
  const { sampleInput } = useEditorStore(selectMeta);
  const [text, setText] = useState(() => show(sampleInput));
  const [error, setError] = useState<string | null>(null);

  // Follow changes made elsewhere (undo, a template), unless the text already says the same.
  const [seen, setSeen] = useState(sampleInput);
  if (seen !== sampleInput) {
    setSeen(sampleInput);
    if (!error && JSON.stringify(safeParse(text)) !== JSON.stringify(sampleInput)) setText(show(sampleInput));
  }

  const change = (next: string) => {
    setText(next);
    if (next.trim() === '') {
      setError(null);
      dispatch({ type: 'updateMeta', meta: { sampleInput: undefined }, field: 'sampleInput' });
      return;
    }
    try {
      const parsed = JSON.parse(next) as Sample;
      setError(null);
      dispatch({ type: 'updateMeta', meta: { sampleInput: parsed }, field: 'sampleInput' });
    } catch (cause) {
      setError(describeJsonError(next, cause));
    }
  };

  return (
    <div className="sample-input">
      <label htmlFor={id} className="panel-title">
        Sample input
      </label>
      <p className="field__hint" id={`${id}-hint`}>
        An example of what starts this flow — for a webhook, the body of one event. Previews, the field picker and the Run button use it. Write it
        as JSON.
      </p>
      <textarea
        id={id}
        className="mono sample-input__text"
        value={text}
        onChange={(event) => change(event.target.value)}
        spellCheck={false}
        rows={18}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        data-testid="sample-input"
      />
      {error ? (
        <p className="field-problem field-problem--error" id={`${id}-error`} role="alert" data-testid="sample-input.error">
          This is not valid JSON yet, so it is not saved. {error} The last valid sample is still used.
        </p>
      ) : (
        <div className="sample-input__actions">
          <span className="muted">Valid JSON</span>
          <button type="button" className="button-secondary small" onClick={() => setText(show(sampleInput))} disabled={text === show(sampleInput)}>
            Tidy up
          </button>
        </div>
      )}
    </div>
  );
}

function safeParse(text: string): unknown {
  try {
    return text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    return Symbol('invalid');
  }
}
