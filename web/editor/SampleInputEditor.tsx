import { useId, useRef } from 'react';
import { useChosenSample, isDefaultSample } from './chosen-sample.ts';
import { placeOf, typeSample, useSampleDraft } from './sample-draft.ts';
import { findJsonMistake } from './sample-json.ts';
import type { FlowMeta } from './editor-changes.ts';
import { SampleList } from './SampleList.tsx';
import { dispatch, selectFlowId, useEditorStore } from './useEditorStore.ts';

const show = (sample: unknown) => (sample === undefined ? '' : JSON.stringify(sample, null, 2));

/**
 * The flow's samples: the list to pick from (SampleList.tsx) and the chosen sample's
 * JSON, which is what a run receives as `trigger.body` in previews and the field picker,
 * and what Run sends. Only valid JSON reaches the flow, so a half-typed sample is never
 * saved; until it is JSON again, the box says where the mistake is and Run and Publish
 * wait (sample-draft.ts).
 */
export function SampleInputEditor({ readOnly = false }: { readOnly?: boolean }) {
  const id = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  const flowId = useEditorStore(selectFlowId) ?? '';
  const chosen = useChosenSample();
  const isDefault = isDefaultSample(chosen);
  const input = chosen.input;
  const typed = useSampleDraft((draft) => (draft.flowId === flowId && draft.slot === chosen.name ? draft : null));
  const mistake = typed?.mistake ?? null;
  // The typed text while it is a mistake or says the same as the sample; otherwise (undo, a
  // template, another tab) the sample itself.
  const text = typed?.text != null && (mistake || sameSample(typed.text, input, isDefault)) ? typed.text : show(input);

  const change = (next: string) => {
    const found = findJsonMistake(next);
    typeSample(flowId, chosen.name, next, found);
    if (found) return;
    const parsed = next.trim() === '' ? undefined : (JSON.parse(next) as FlowMeta['sampleInput']);
    if (isDefault) {
      dispatch({ type: 'updateMeta', meta: { sampleInput: parsed }, field: 'sampleInput' });
      return;
    }
    // A named sample always has an input: an emptied box is an empty one.
    const samples = (useEditorStore.getState().meta.samples ?? []).map((sample) => (sample.name === chosen.name ? { ...sample, input: parsed ?? {} } : sample));
    dispatch({ type: 'updateMeta', meta: { samples }, field: `sample:${chosen.name}` });
  };

  const goToMistake = () => {
    if (!mistake || !box.current) return;
    box.current.focus();
    box.current.setSelectionRange(mistake.offset, Math.min(mistake.offset + 1, text.length));
  };

  return (
    <div className="sample-input">
      <SampleList flowId={flowId} chosen={chosen} readOnly={readOnly} />
      <label htmlFor={id} className="panel-title sample-input__label">
        {isDefault ? chosen.name : `Sample “${chosen.name}”`} (JSON)
      </label>
      <p className="field__hint" id={`${id}-hint`}>
        {isDefault ? 'The default sample: runs started without another input use it.' : 'Test runs and proofs can pick this sample by its name.'} Write it as JSON.
      </p>
      <textarea
        ref={box}
        id={id}
        className="mono sample-input__text"
        value={text}
        onChange={(event) => change(event.target.value)}
        readOnly={readOnly}
        spellCheck={false}
        rows={14}
        aria-invalid={mistake ? true : undefined}
        aria-describedby={`${id}-hint${mistake ? ` ${id}-error` : ''}`}
        data-testid="sample-input"
      />
      {mistake ? (
        <div className="field-problem field-problem--error" id={`${id}-error`} role="alert" data-testid="sample-input.error">
          <p>
            <strong>Not valid JSON at {placeOf(mistake)}:</strong> {mistake.problem}.
          </p>
          <p>This sample is not saved, and Run waits until it is fixed (or the box is emptied). Picking another sample drops what was typed here.</p>
          <button type="button" className="link-button" onClick={goToMistake}>
            Go to {placeOf(mistake)}
          </button>
        </div>
      ) : (
        <div className="sample-input__actions">
          <span className="muted">Valid JSON</span>
          {!readOnly && (
            <button type="button" className="button-secondary small" onClick={() => typeSample(flowId, chosen.name, show(input), null)} disabled={text === show(input)}>
              Tidy up
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function sameSample(text: string, sample: unknown, isDefault: boolean): boolean {
  if (text.trim() === '') return isDefault ? sample === undefined : JSON.stringify(sample) === '{}';
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(sample);
  } catch {
    return false;
  }
}
