import { useMemo, useState } from 'react';
import { DURATION_PATTERN } from '../../../core/duration.ts';
import { CONDITION_OPS } from '../../../core/step-kinds.ts';
import { textOrUndefined } from '../data-path.ts';
import { leafFields } from '../sample-fields.ts';
import { usePickerFields, type StepEditor } from '../useStepEditor.ts';
import { FieldProblems, SelectField, TextField } from './Fields.tsx';
import { PairsField } from './PairsField.tsx';

export function TransformForm({ step }: { step: StepEditor }) {
  return (
    <PairsField
      legend="Outputs"
      value={step.get('outputs')}
      onChange={(value) => step.set('outputs', value ?? {})}
      nameLabel="Output name"
      valueLabel="Output value"
      namePlaceholder="total"
      valuePlaceholder="{{ trigger.body.order.total }}"
      addLabel="Add an output"
      keepOne
      hint={`Later steps can use each output as {{ steps.${step.node.id}.output.<name> }}; they appear in the field picker of the steps after this one.`}
      problems={step.problemsAt('outputs')}
    />
  );
}

const OP_WORDS: Record<(typeof CONDITION_OPS)[number], string> = {
  equals: 'is',
  not_equals: 'is not',
  contains: 'contains',
  exists: 'has a value',
  gt: 'is more than',
  lt: 'is less than',
};
const OP_OPTIONS = CONDITION_OPS.map((op) => ({ value: op, label: OP_WORDS[op] }));
const CUSTOM = '__custom__';

export function ConditionForm({ step }: { step: StepEditor }) {
  const { sample, outputs, loop } = usePickerFields();
  const choices = useMemo(
    () => [
      ...leafFields(loop ?? []).map((field) => ({ value: field.placeholder, label: `${field.name}${field.preview ? ` (e.g. ${field.preview})` : ''}` })),
      ...leafFields(sample).map((field) => ({ value: field.placeholder, label: `${field.name}${field.preview ? ` (e.g. ${field.preview})` : ''}` })),
      ...outputs.flatMap((out) => out.fields.map((field) => ({ value: field.placeholder, label: `${out.label} → ${field.name}` }))),
    ],
    [sample, outputs, loop],
  );
  const left = step.text('left');
  const [customChosen, setCustomChosen] = useState(false);
  const custom = customChosen || (left !== '' && !choices.some((choice) => choice.value === left));
  const op = (step.text('op') || 'equals') as (typeof CONDITION_OPS)[number];
  const right = step.get('right');
  const rightText = right === undefined || right === null ? '' : String(right);
  const fieldName = choices.find((choice) => choice.value === left)?.label.replace(/ \(e\.g\..*$/, '') ?? (left || 'the field');

  const setRight = (text: string, forOp = op) => {
    // Comparisons of size need numbers; equality keeps text, so an id like "0042" stays as written.
    const numeric = (forOp === 'gt' || forOp === 'lt') && text.trim() !== '' && !Number.isNaN(Number(text));
    step.set('right', numeric ? Number(text) : text);
  };

  return (
    <>
      <SelectField
        label="Check this field"
        value={custom ? CUSTOM : left}
        options={[{ value: '', label: 'Choose a field…' }, ...choices, { value: CUSTOM, label: 'Something else (write it)' }]}
        onChange={(value) => {
          setCustomChosen(value === CUSTOM);
          if (value !== CUSTOM) step.set('left', value);
        }}
        problems={custom ? [] : step.problemsAt('left')}
      />
      {custom && <TextField label="Value to check" value={left} onChange={(value) => step.set('left', value)} mono picker placeholder="{{ trigger.body.order.total }}" problems={step.problemsAt('left')} />}
      <SelectField
        label="Condition"
        value={op}
        options={OP_OPTIONS}
        onChange={(value) => {
          step.update((data) => {
            const { right: _right, ...rest } = data;
            return value === 'exists' ? { ...rest, op: value } : { ...data, op: value };
          }, 'op');
        }}
        problems={step.problemsAt('op')}
      />
      {op !== 'exists' && (
        <TextField label="Compare with" value={rightText} onChange={(value) => setRight(value)} picker placeholder={op === 'gt' || op === 'lt' ? '100' : 'paid'} problems={step.problemsAt('right')} />
      )}
      <p className="inspector-note" data-testid="condition.sentence">
        When <strong>{fieldName}</strong> {OP_WORDS[op]}
        {op === 'exists' ? '' : <> <strong>{rightText || '…'}</strong></>}, the flow continues from the <span className="exit exit--true">Yes</span> exit;
        otherwise from the <span className="exit exit--false">No</span> exit.
      </p>
    </>
  );
}

const UNITS = [
  { value: 'm', label: 'minutes' },
  { value: 'h', label: 'hours' },
  { value: 'd', label: 'days' },
  { value: 's', label: 'seconds' },
] as const;

export function DelayForm({ step }: { step: StepEditor }) {
  const waitFor = step.get('for');
  const mode = step.get('until') !== undefined ? 'until' : 'for';
  const match = typeof waitFor === 'string' ? DURATION_PATTERN.exec(waitFor) : null;
  const amount = match?.[1] ?? '';
  const unit = (match?.[2] ?? 'h') as (typeof UNITS)[number]['value'];
  const switchMode = (next: 'for' | 'until') =>
    step.update((data) => {
      const { for: _for, until: _until, ...rest } = data;
      return next === 'for' ? { ...rest, for: '1h' } : { ...rest, until: '' };
    }, 'mode');

  return (
    <>
      <SelectField
        label="Wait"
        value={mode}
        options={[
          { value: 'for', label: 'for a length of time' },
          { value: 'until', label: 'until a date and time' },
        ]}
        onChange={switchMode}
        hint="The wait is kept safely on the server: a restart or an update does not lose it or cut it short."
      />
      {mode === 'for' && match && (
        <div className="field-row">
          <TextField label="How long" type="number" value={amount} onChange={(value) => step.set('for', `${Math.max(0, Math.round(Number(value) || 0))}${unit}`)} />
          <SelectField label="Unit" value={UNITS.some((option) => option.value === unit) ? unit : 'h'} options={UNITS} onChange={(value) => step.set('for', `${amount || '1'}${value}`)} />
        </div>
      )}
      {mode === 'for' && !match && (
        <TextField label="How long" value={typeof waitFor === 'string' ? waitFor : ''} onChange={(value) => step.set('for', value)} mono placeholder="2d" hint="A number followed by s, m, h or d, like 90s, 15m, 2h or 3d." problems={step.problemsAt('for')} />
      )}
      {mode === 'until' && (
        <TextField
          label="Until"
          value={step.text('until')}
          onChange={(value) => step.set('until', value)}
          mono
          picker
          placeholder="2026-07-01T09:00:00Z or {{ trigger.body.renewsAt }}"
          hint="A date and time (like 2026-07-01T09:00:00Z), or a field that holds one."
          problems={step.problemsAt('until')}
        />
      )}
      {mode === 'for' && match && <FieldProblems problems={step.problemsAt('for')} />}
    </>
  );
}

export function StateTransitionForm({ step }: { step: StepEditor }) {
  const states = Array.isArray(step.get('states')) ? (step.get('states') as unknown[]).map(String) : [];
  const [statesText, setStatesText] = useState(states.join(', '));
  const parse = (text: string) => text.split(',').map((item) => item.trim()).filter((item) => item !== '');
  // Keep what is being typed (a trailing comma), unless the states changed elsewhere (undo).
  const shownText = parse(statesText).join('|') === states.join('|') ? statesText : states.join(', ');
  const requires = step.text('requires');

  return (
    <>
      <TextField
        label="Record"
        value={step.text('entity')}
        onChange={(value) => step.set('entity', value)}
        mono
        picker
        placeholder="invoice:{{ trigger.body.data.id }}"
        hint="Which record this step moves. Events about the same record are put in order; different records never wait for each other."
        problems={step.problemsAt('entity')}
      />
      <TextField
        label="States, in order"
        value={shownText}
        onChange={(value) => {
          setStatesText(value);
          step.set('states', parse(value));
        }}
        placeholder="created, paid, refunded"
        hint="Separated by commas. A record only ever moves forward through this list."
        problems={step.problemsAt('states')}
      />
      <TextField
        label="Move to"
        value={step.text('to')}
        onChange={(value) => step.set('to', value)}
        mono
        picker
        placeholder="{{ trigger.body.data.status }}"
        hint="The state this event asks for, usually taken from the event."
        problems={step.problemsAt('to')}
      />
      <SelectField
        label="If an older event arrives after a newer one"
        value={step.text('onStale') || 'stop'}
        options={[
          { value: 'stop', label: 'Stop here (recommended)' },
          { value: 'continue', label: 'Carry on anyway' },
        ]}
        onChange={(value) => step.set('onStale', value)}
        hint="An older event never moves the record back. Stopping makes sure nothing after this step acts on old news."
        problems={step.problemsAt('onStale')}
      />
      <SelectField
        label="Before moving, wait until the record has reached"
        value={requires}
        options={[{ value: '', label: 'Do not wait' }, ...states.map((state) => ({ value: state, label: state }))]}
        onChange={(value) => step.set('requires', textOrUndefined(value))}
        hint="For an event that can overtake the one it depends on, e.g. a payment that arrives before the invoice it pays."
        problems={step.problemsAt('requires')}
      />
      {requires !== '' && (
        <TextField
          label="Give up waiting after"
          value={step.text('requiresTimeout')}
          onChange={(value) => step.set('requiresTimeout', textOrUndefined(value))}
          mono
          placeholder="1h"
          hint="A number followed by m, h or d."
          problems={step.problemsAt('requiresTimeout')}
        />
      )}
    </>
  );
}
