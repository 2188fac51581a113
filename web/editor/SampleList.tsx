import { useEffect, useId, useState } from 'react';
import { DEFAULT_SAMPLE_NAME, newSampleName, sampleNameProblem, type NamedSample } from '../../core/samples.ts';
import { chooseSample, isDefaultSample } from './chosen-sample.ts';
import type { FlowMeta } from './editor-changes.ts';
import { clearSampleDraft } from './sample-draft.ts';
import { dispatch, useEditorStore } from './useEditorStore.ts';

type Samples = NonNullable<FlowMeta['samples']>;

const namedSamples = (): Samples => useEditorStore.getState().meta.samples ?? [];

/**
 * The flow's samples as a list to pick from, and the chosen one's name: add a sample
 * (a copy of the chosen one to start from), rename or delete a named one. The first
 * sample is the flow's sample input; it keeps its name and cannot be deleted. A name is
 * saved only once it is one of its own, like a sample's JSON.
 */
export function SampleList({ flowId, chosen, readOnly }: { flowId: string; chosen: NamedSample; readOnly: boolean }) {
  const samples = useEditorStore((state) => state.meta.samples) ?? [];
  const all = [DEFAULT_SAMPLE_NAME, ...samples.map((sample) => sample.name)];
  const group = useId();

  const pick = (name: string) => {
    if (name === chosen.name) return;
    clearSampleDraft();
    chooseSample(flowId, name);
  };

  const add = () => {
    const name = newSampleName({ samples: namedSamples() });
    dispatch({ type: 'updateMeta', meta: { samples: [...namedSamples(), { name, input: (chosen.input ?? {}) as Samples[number]['input'] }] } });
    pick(name);
  };

  const remove = () => {
    dispatch({ type: 'updateMeta', meta: { samples: namedSamples().filter((sample) => sample.name !== chosen.name) } });
    pick(DEFAULT_SAMPLE_NAME);
  };

  return (
    <div className="sample-list">
      <fieldset className="sample-list__choices">
        <legend className="panel-title">Samples</legend>
        <p className="field__hint">
          Examples of what starts this flow — for a webhook, the body of one event. The chosen sample feeds the key preview, the field picker, Try this step and
          the Run button.
        </p>
        {all.map((name) => (
          <label key={name} className={`sample-list__choice${name === chosen.name ? ' is-chosen' : ''}`}>
            <input type="radio" name={group} checked={name === chosen.name} onChange={() => pick(name)} data-testid="samples.choice" />
            <span>{name}</span>
          </label>
        ))}
      </fieldset>
      {!readOnly && (
        <div className="sample-list__actions">
          <button type="button" className="button-secondary small" onClick={add} data-testid="samples.add">
            Add a sample
          </button>
          {!isDefaultSample(chosen) && (
            <button type="button" className="button-danger small" onClick={remove} data-testid="samples.delete">
              Delete “{chosen.name}”
            </button>
          )}
        </div>
      )}
      {/* Keyed by place, not name: renaming must not remount the field being typed into. */}
      {!isDefaultSample(chosen) && <SampleName key={all.indexOf(chosen.name)} place={all.indexOf(chosen.name)} flowId={flowId} name={chosen.name} readOnly={readOnly} />}
    </div>
  );
}

function SampleName({ flowId, name, place, readOnly }: { flowId: string; name: string; place: number; readOnly: boolean }) {
  const id = useId();
  const [text, setText] = useState(name);
  // Follows undo and other tabs, but keeps a space being typed at the end.
  useEffect(() => setText((typed) => (typed.trim() === name ? typed : name)), [name]);
  const others = namedSamples().map((sample) => sample.name).filter((other) => other !== name);
  const problem = text === name ? null : sampleNameProblem(text, others);

  const rename = (next: string) => {
    setText(next);
    const trimmed = next.trim();
    if (trimmed === name || sampleNameProblem(next, others) !== null) return;
    dispatch({
      type: 'updateMeta',
      meta: { samples: namedSamples().map((sample) => (sample.name === name ? { ...sample, name: trimmed } : sample)) },
      field: `sample-name:${place}`,
    });
    chooseSample(flowId, trimmed);
  };

  return (
    <div className="field">
      <label htmlFor={id}>Name of this sample</label>
      <input
        id={id}
        value={text}
        onChange={(event) => rename(event.target.value)}
        readOnly={readOnly}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        data-testid="samples.name"
      />
      {problem && (
        <p className="field-problem field-problem--error" id={`${id}-problem`} role="alert">
          {problem} The name stays “{name}” until then.
        </p>
      )}
    </div>
  );
}
