import { useId, useRef } from 'react';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { placeOf, typeSample, useSampleDraft } from './sample-draft.ts';
import { findJsonMistake } from './sample-json.ts';
import { dispatch, selectFlowId, selectMeta, useEditorStore } from './useEditorStore.ts';

type Sample = FlowDocument['sampleInput'];

const show = (sample: Sample) => (sample === undefined ? '' : JSON.stringify(sample, null, 2));

/**
 * The flow's sample input: what a run receives as `trigger.body` in previews and the
 * field picker, and what Run sends. Only valid JSON reaches the flow, so a half-typed
 * sample is never saved; until it is JSON again, the box says where the mistake is and
 * Run and Publish wait (sample-draft.ts).
 */
export function SampleInputEditor({ readOnly = false }: { readOnly?: boolean }) {
  const id = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  const flowId = useEditorStore(selectFlowId) ?? '';
  const { sampleInput } = useEditorStore(selectMeta);
  const typed = useSampleDraft((draft) => (draft.flowId === flowId ? draft : null));
  const mistake = typed?.mistake ?? null;
  // The typed text while it is a mistake or says the same as the flow; otherwise (undo, a
  // template, another tab) the flow's sample.
  const text = typed?.text != null && (mistake || sameSample(typed.text, sampleInput)) ? typed.text : show(sampleInput);

  const change = (next: string) => {
    const found = findJsonMistake(next);
    typeSample(flowId, next, found);
    if (found) return;
    const parsed = next.trim() === '' ? undefined : (JSON.parse(next) as Sample);
    dispatch({ type: 'updateMeta', meta: { sampleInput: parsed }, field: 'sampleInput' });
  };

  const goToMistake = () => {
    if (!mistake || !box.current) return;
    box.current.focus();
    box.current.setSelectionRange(mistake.offset, Math.min(mistake.offset + 1, text.length));
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
        ref={box}
        id={id}
        className="mono sample-input__text"
        value={text}
        onChange={(event) => change(event.target.value)}
        readOnly={readOnly}
        spellCheck={false}
        rows={18}
        aria-invalid={mistake ? true : undefined}
        aria-describedby={`${id}-hint${mistake ? ` ${id}-error` : ''}`}
        data-testid="sample-input"
      />
      {mistake ? (
        <div className="field-problem field-problem--error" id={`${id}-error`} role="alert" data-testid="sample-input.error">
          <p>
            <strong>Not valid JSON at {placeOf(mistake)}:</strong> {mistake.problem}.
          </p>
          <p>This sample is not saved, and Run waits until it is fixed (or the box is emptied).</p>
          <button type="button" className="link-button" onClick={goToMistake}>
            Go to {placeOf(mistake)}
          </button>
        </div>
      ) : (
        <div className="sample-input__actions">
          <span className="muted">Valid JSON</span>
          {!readOnly && (
            <button type="button" className="button-secondary small" onClick={() => typeSample(flowId, show(sampleInput), null)} disabled={text === show(sampleInput)}>
              Tidy up
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function sameSample(text: string, sample: Sample): boolean {
  if (text.trim() === '') return sample === undefined;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(sample);
  } catch {
    return false;
  }
}
