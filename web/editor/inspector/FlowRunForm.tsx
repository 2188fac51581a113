/**
 * A Run flow step's settings: the flow to run, chosen from the published flows (this one
 * aside: a flow may not run itself), and the child's input, a template or JSON. The key
 * is in the side-effect section, as for every step that acts.
 */
import { useQuery } from '@tanstack/react-query';
import { trpc } from '../../lib/trpc.ts';
import { selectFlowId, useEditorStore } from '../useEditorStore.ts';
import type { StepEditor } from '../useStepEditor.ts';
import { SelectField, TextField } from './Fields.tsx';

/** The input as typed: an object written in the file is shown as JSON. */
function inputText(input: unknown): string {
  if (input === undefined || input === null) return '';
  return typeof input === 'string' ? input : JSON.stringify(input, null, 2);
}

/** JSON text becomes the object it writes (its strings still templates); anything else stays a template. */
function inputValue(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? parsed : text;
  } catch {
    return text;
  }
}

export function FlowRunForm({ step }: { step: StepEditor }) {
  const thisFlow = useEditorStore(selectFlowId);
  const flows = useQuery(trpc.flows.list.queryOptions());
  const chosen = step.text('flowId');
  // Test snapshots are numbered below zero: only a version above zero is published.
  const published = (flows.data ?? []).filter((flow) => (flow.latestVersion ?? 0) > 0 && flow.id !== thisFlow);
  const known = published.some((flow) => flow.id === chosen);
  const options = [
    { value: '', label: published.length === 0 ? 'No other flow is published yet' : 'Choose a flow…' },
    // A flow named by an imported file but not on this server stays visible, so it can be replaced.
    ...(chosen !== '' && !known ? [{ value: chosen, label: flows.isPending ? 'Loading…' : `Not found here (${chosen})` }] : []),
    ...published.map((flow) => ({ value: flow.id, label: `${flow.name} (v${flow.latestVersion})` })),
  ];
  return (
    <>
      <SelectField
        label="Flow to run"
        value={chosen}
        options={options}
        onChange={(value) => step.set('flowId', value === '' ? undefined : value)}
        hint="Its latest published version runs, and this step waits for its result: {{ steps.<this step>.output.result }} is the output of its last step."
        problems={step.problemsAt('flowId')}
      />
      {flows.error && <p className="inspector-note" role="alert">The flows could not be loaded: {flows.error.message}</p>}
      <TextField
        label="Input"
        value={inputText(step.get('input'))}
        onChange={(value) => step.set('input', inputValue(value))}
        multiline={4}
        mono
        picker
        placeholder="{{ trigger.body }}"
        hint="What the other flow receives as its trigger's body: one field, or JSON with fields inserted. Empty sends {}."
        problems={step.problemsAt('input')}
      />
    </>
  );
}
