import type { FieldEntry } from '../sample-fields.ts';
import { usePickerFields } from '../useStepEditor.ts';

/**
 * The fields of the flow's sample input as a tree (and the known outputs of earlier
 * steps); clicking one inserts its placeholder, so nobody has to type `{{ … }}` paths.
 */
export function FieldPicker({ onPick, label }: { onPick(placeholder: string): void; label: string }) {
  const { sample, hasSample, outputs, loop, loopListKnown } = usePickerFields();
  return (
    <div className="field-picker" role="group" aria-label={label} data-testid="field-picker">
      {loop && (
        <>
          <p className="field-picker__title">From the current item</p>
          {!loopListKnown && <p className="field-picker__empty">The sample input does not hold the list this loop goes through, so its items' fields cannot be listed. You can still write {'{{ item.<field> }}'}.</p>}
          <FieldTree entries={loop} onPick={onPick} depth={0} />
        </>
      )}
      <p className="field-picker__title">From the sample input</p>
      {!hasSample && <p className="field-picker__empty">This flow has no sample input yet. Add one under “Sample input” to pick its fields here.</p>}
      {hasSample && sample.length === 0 && <p className="field-picker__empty">The sample input has no fields.</p>}
      {sample.length > 0 && <FieldTree entries={sample} onPick={onPick} depth={0} />}
      {outputs.length > 0 && (
        <>
          <p className="field-picker__title">From earlier steps</p>
          <ul className="field-tree">
            {outputs.map((step) => (
              <li key={step.id}>
                <span className="field-tree__group">{step.label}</span>
                <ul className="field-tree">
                  {step.fields.map((field) => (
                    <li key={field.name}>
                      <button type="button" className="field-tree__leaf" onClick={() => onPick(field.placeholder)} aria-label={`${step.id}.${field.name}`} title={`Insert ${field.placeholder}`}>
                        <span className="field-tree__name">{field.name}</span>
                        <span className="field-tree__value">output</span>
                      </button>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function FieldTree({ entries, onPick, depth }: { entries: readonly FieldEntry[]; onPick(placeholder: string): void; depth: number }) {
  return (
    <ul className="field-tree">
      {entries.map((entry) => {
        const key = entry.path[entry.path.length - 1] ?? entry.name;
        if (entry.children.length === 0) {
          return (
            <li key={entry.name}>
              <button type="button" className="field-tree__leaf" onClick={() => onPick(entry.placeholder)} aria-label={entry.name} title={`Insert ${entry.placeholder}`} data-testid="field-picker.item">
                <span className="field-tree__name">{key}</span>
                <span className="field-tree__value">{entry.preview ?? ''}</span>
              </button>
            </li>
          );
        }
        return (
          <li key={entry.name}>
            <details open={depth < 2}>
              <summary className="field-tree__group">{key}</summary>
              <FieldTree entries={entry.children} onPick={onPick} depth={depth + 1} />
            </details>
          </li>
        );
      })}
    </ul>
  );
}
