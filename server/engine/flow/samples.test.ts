import { describe, expect, it } from 'vitest';
import type { FlowDocument } from './document.ts';
import { findSample, flowSamples } from './samples.ts';
import { previewKey, validateFlow } from './validate.ts';

function flow(samples?: unknown, sampleInput: unknown = { order: { id: '4417' } }): Record<string, unknown> {
  return {
    format: 'onceflow/v1',
    name: 'Invoices',
    sampleInput,
    ...(samples === undefined ? {} : { samples }),
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'invoice', type: 'http.request', position: { x: 200, y: 0 }, data: { key: 'inv-{{ trigger.body.order.id }}', request: { method: 'POST', url: 'https://x.test' } } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }],
  };
}

const sampleProblems = (input: unknown) => validateFlow(input).problems.filter((problem) => problem.field?.startsWith('samples'));

describe('flowSamples and findSample', () => {
  const doc = flow([{ name: 'order with two lines', input: { order: { id: '4418' } } }, { name: 'refund', input: { refund: { id: 'r1' } } }]) as FlowDocument;

  it('lists the sample input first, then the named samples in order', () => {
    expect(flowSamples(doc).map((sample) => sample.name)).toEqual(['Sample input', 'order with two lines', 'refund']);
    expect(flowSamples(doc)[0]?.input).toEqual({ order: { id: '4417' } });
    // A flow written before samples existed has just the default one (an empty object when none was given).
    expect(flowSamples({})).toEqual([{ name: 'Sample input', input: {} }]);
  });

  it('finds a sample by name, the default without one, and lists the names when one is missing', () => {
    expect(findSample(doc, 'refund').input).toEqual({ refund: { id: 'r1' } });
    expect(findSample(doc).name).toBe('Sample input');
    expect(findSample(doc, 'Sample input').input).toEqual({ order: { id: '4417' } });
    expect(() => findSample(doc, 'order 9')).toThrow('This flow has no sample called "order 9". Its samples are: "Sample input", "order with two lines", "refund".');
  });
});

describe('validating samples', () => {
  it('accepts uniquely named samples', () => {
    const result = validateFlow(flow([{ name: 'order 4417', input: { order: { id: '4417' } } }, { name: 'refund', input: {} }]));
    expect(result.ok).toBe(true);
    expect(result.flow?.samples).toEqual([{ name: 'order 4417', input: { order: { id: '4417' } } }, { name: 'refund', input: {} }]);
  });

  it('names the sample whose name is missing, taken or the default one', () => {
    expect(sampleProblems(flow([{ name: 'refund', input: {} }, { name: ' ', input: {} }, { name: 'refund ', input: {} }, { name: 'Sample input', input: {} }]))).toEqual([
      { severity: 'error', code: 'sample_unnamed', field: 'samples[1].name', message: 'Named sample number 2 has no name. Give it one, such as "order 4417".' },
      { severity: 'error', code: 'sample_name_taken', field: 'samples[2].name', message: 'Two samples are called "refund". Give each sample a name of its own, so test runs and proofs know which one to use.' },
      { severity: 'error', code: 'sample_name_taken', field: 'samples[3].name', message: 'A named sample is called "Sample input", which is the name of the flow\'s first sample. Give it another name.' },
    ]);
  });

  it('says in words when samples are not shaped as samples', () => {
    expect(sampleProblems(flow({ name: 'x' })).map((problem) => problem.message)).toEqual([
      'The flow\'s named samples ("samples") should be a list of samples, each with a name and an input.',
    ]);
    expect(sampleProblems(flow([{ name: 'refund' }])).map((problem) => problem.message)).toEqual([
      'The sample "refund" should hold plain data as its input (JSON: text, numbers, yes/no, lists and groups of fields).',
    ]);
    expect(sampleProblems(flow([{ name: 7, input: {} }])).map((problem) => problem.message)).toEqual(['Named sample number 1 has a name that is not text.']);
  });
});

describe('previewKey with a named sample', () => {
  const doc = flow([{ name: 'refund', input: { refund: { id: 'r1' } } }, { name: 'order 4418', input: { order: { id: '4418' } } }]) as FlowDocument;

  it('renders the key for the chosen sample and names it when a field is missing', () => {
    expect(previewKey(doc, 'invoice', undefined, 'order 4418').key).toBe('inv-4418');
    expect(previewKey(doc, 'invoice').key).toBe('inv-4417');
    expect(previewKey(doc, 'invoice', undefined, 'refund').error).toBe(
      'The sample "refund" has no field "order.id", so "trigger.body.order.id" cannot be shown. Add it to the sample "refund" to see the key.',
    );
    expect(previewKey(doc, 'invoice', undefined, 'gone').error).toContain('This flow has no sample called "gone"');
  });
});
