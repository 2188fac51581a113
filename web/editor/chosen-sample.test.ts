import { afterEach, describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { chooseSample, chosenSampleNow, sampleOf } from './chosen-sample.ts';
import { documentFromSnapshot, snapshotFromDocument } from './flow-document.ts';
import { draftDiffersFromLive } from './live-status.ts';
import { useEditorStore } from './useEditorStore.ts';

const document: FlowDocument = {
  format: 'onceflow/v1',
  name: 'Orders',
  sampleInput: { order: { id: '4417' } },
  samples: [
    { name: 'order with two lines', input: { order: { id: '4418', lines: [1, 2] } } },
    { name: 'refund', input: { refund: { id: 'r1' } } },
  ],
  nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }],
  edges: [],
};

afterEach(() => useEditorStore.getState().reset());

describe('the chosen sample', () => {
  it('is the default sample until another is chosen, and falls back to it when the name is gone', () => {
    const meta = snapshotFromDocument(document).meta;
    expect(sampleOf(meta, null)).toEqual({ name: 'Sample input', input: { order: { id: '4417' } } });
    expect(sampleOf(meta, 'refund')).toEqual({ name: 'refund', input: { refund: { id: 'r1' } } });
    expect(sampleOf(meta, 'deleted meanwhile').name).toBe('Sample input');
    expect(sampleOf({}, null)).toEqual({ name: 'Sample input', input: undefined });
  });

  it('is what Run reads for the flow on the canvas, and only for that flow', () => {
    useEditorStore.getState().dispatch({ type: 'load', flowId: 'flow_a', document });
    chooseSample('flow_a', 'order with two lines');
    expect(chosenSampleNow().input).toEqual({ order: { id: '4418', lines: [1, 2] } });
    useEditorStore.getState().dispatch({ type: 'load', flowId: 'flow_b', document });
    expect(chosenSampleNow().name).toBe('Sample input');
  });
});

describe('samples in the document the editor saves', () => {
  it('survive the canvas, and an empty list is left out', () => {
    expect(documentFromSnapshot(snapshotFromDocument(document)).samples).toEqual(document.samples);
    expect(documentFromSnapshot(snapshotFromDocument({ ...document, samples: [] }))).not.toHaveProperty('samples');
  });

  it('count as a change against the live version', () => {
    expect(draftDiffersFromLive({ ...document, samples: [] }, { ...document, samples: undefined })).toBe(false);
    expect(draftDiffersFromLive(document, { ...document, samples: [{ name: 'refund', input: {} }] })).toBe(true);
  });
});
