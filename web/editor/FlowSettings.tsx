/**
 * The flow's own settings (the document's `settings`, DESIGN.md §3), beside its steps:
 * what happens when a run fails. Saved like any other change; the server's checks show
 * under the field they are about.
 */
import { useState } from 'react';
import { RETRY_LATER } from '../../core/retry-later.ts';
import { FieldProblems, SelectField, TextField } from './inspector/Fields.tsx';
import { dispatch, useEditorStore } from './useEditorStore.ts';
import type { FlowProblem } from './useStepProblems.ts';

const STANDARD = ['1m', '10m', '1h'];

type RetryChoice = 'off' | 'standard' | 'custom';

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/** "5m, 30m, 2h" → ["5m", "30m", "2h"]; blanks between commas are dropped. */
export function delaysFromText(text: string): string[] {
  return text.split(',').map((part) => part.trim()).filter((part) => part !== '');
}

export function FlowSettings({ problems, readOnly }: { problems: readonly FlowProblem[]; readOnly: boolean }) {
  const settings = useEditorStore((state) => state.meta.settings);
  const delays = settings?.retryFailedRuns ?? [];
  const stored: RetryChoice = delays.length === 0 ? 'off' : sameList(delays, STANDARD) ? 'standard' : 'custom';
  const [choice, setChoice] = useState<RetryChoice>(stored);
  const [text, setText] = useState(delays.join(', '));
  // A list typed by hand stays in its text box even when it reads like the standard one.
  const shown: RetryChoice = choice === 'custom' ? 'custom' : stored;
  const retryProblems = problems.filter((problem) => problem.field?.startsWith('settings.retryFailedRuns'));

  const save = (next: string[]) => {
    const rest = { ...(useEditorStore.getState().meta.settings ?? {}) };
    delete rest.retryFailedRuns;
    dispatch({ type: 'updateMeta', meta: { settings: next.length > 0 ? { ...rest, retryFailedRuns: next } : rest }, field: 'settings.retryFailedRuns' });
  };

  const pick = (next: RetryChoice) => {
    setChoice(next);
    if (next === 'off') save([]);
    if (next === 'standard') save(STANDARD);
    if (next === 'custom') {
      const typed = delaysFromText(text);
      setText(typed.length > 0 ? text : STANDARD.join(', '));
      save(typed.length > 0 ? typed : STANDARD);
    }
  };

  return (
    <div className="flow-settings" data-testid="flow-settings">
      <h2 className="panel-title">When a run fails</h2>
      <fieldset disabled={readOnly} className="flow-settings__group">
        <legend className="visually-hidden">When a run fails</legend>
        <SelectField<RetryChoice>
          label="If a run fails"
          value={shown}
          onChange={pick}
          options={[
            { value: 'off', label: 'Leave it failed for a person to rerun' },
            { value: 'standard', label: 'Try it again after 1 minute, 10 minutes and 1 hour' },
            { value: 'custom', label: 'Try it again after delays I choose' },
          ]}
          hint="An automatic rerun goes on from the steps already done, like Rerun: work already done is not done again. A run that still fails after the last try stays failed."
        />
        {shown === 'custom' && (
          <TextField
            label="Delays before each try"
            value={text}
            onChange={(next) => {
              setText(next);
              save(delaysFromText(next));
            }}
            placeholder="5m, 30m, 2h"
            hint={`Separated by commas: a number and s, m, h or d. From 10s to 7d each, at most ${RETRY_LATER.maxDelays} tries.`}
            problems={retryProblems}
            testId="flow-settings.delays"
          />
        )}
        {shown !== 'custom' && <FieldProblems problems={retryProblems} />}
      </fieldset>
    </div>
  );
}
