import { useMemo } from 'react';
import { FOR_EACH } from '../../../core/step-kinds.ts';
import { useChosenSample } from '../chosen-sample.ts';
import { sampleLists } from '../sample-fields.ts';
import type { StepEditor } from '../useStepEditor.ts';
import { SelectField, TextField } from './Fields.tsx';

/** A number field's text as a setting: empty means "the default" (the setting is removed). */
function wholeNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? Math.round(value) : undefined;
}

/**
 * A For each step: which list it goes through (the sample's lists a click away), how
 * many items run at once, what a failed item does to the rest, and the most items allowed.
 */
export function ForEachForm({ step }: { step: StepEditor }) {
  const { input } = useChosenSample();
  const lists = useMemo(() => sampleLists(input), [input]);
  const items = step.text('items');
  const shown = lists.filter((list) => list.placeholder !== items);

  return (
    <>
      <TextField
        label="Items"
        value={items}
        onChange={(value) => step.set('items', value)}
        mono
        picker
        placeholder="{{ trigger.body.leads }}"
        hint="The list to go through. The steps inside run once for every item; there, {{ item }} is the item and {{ loop.index }} its place in the list (from 1)."
        problems={step.problemsAt('items')}
        testId="inspector.items"
      >
        {shown.length > 0 && (
          <div className="key-suggestions">
            <span className="key-suggestions__title">Lists in the sample</span>
            {shown.map((list) => (
              <button key={list.placeholder} type="button" className="chip mono" onClick={() => step.set('items', list.placeholder)} aria-label={`Go through ${list.name} (${list.count} item${list.count === 1 ? '' : 's'} in the sample)`}>
                {list.name} · {list.count}
              </button>
            ))}
          </div>
        )}
      </TextField>
      <TextField
        label="Items at once"
        type="number"
        value={step.text('concurrency')}
        onChange={(value) => step.set('concurrency', wholeNumber(value))}
        placeholder={String(FOR_EACH.defaultConcurrency)}
        hint={`From 1 to ${FOR_EACH.maxConcurrency}. One at a time (the default) keeps the items in order; more finish sooner, if the services they call can take it.`}
        problems={step.problemsAt('concurrency')}
        testId="inspector.concurrency"
      />
      <SelectField
        label="If an item fails"
        value={step.text('onItemError') === 'continue' ? 'continue' : 'stop'}
        options={[
          { value: 'stop', label: 'Stop the loop' },
          { value: 'continue', label: 'Continue with the rest' },
        ]}
        onChange={(value) => step.set('onItemError', value)}
        hint="Stopping lets the items already under way finish, then fails the loop. Continuing finishes every other item and lists the failed ones. Either way, a rerun skips the items that finished."
        problems={step.problemsAt('onItemError')}
      />
      <TextField
        label="Most items"
        type="number"
        value={step.text('maxItems')}
        onChange={(value) => step.set('maxItems', wholeNumber(value))}
        placeholder={FOR_EACH.defaultMaxItems.toLocaleString('en')}
        hint={`Checked before the first item: a longer list stops the loop with a clear message instead of running part of it. Empty means ${FOR_EACH.defaultMaxItems.toLocaleString('en')}.`}
        problems={step.problemsAt('maxItems')}
        testId="inspector.max-items"
      />
    </>
  );
}
