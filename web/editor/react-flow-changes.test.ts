import type { EdgeChange, NodeChange } from '@xyflow/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import type { StepEdge, StepNode } from './editor-changes.ts';
import { applyChange, initialEditorState, isDirty, type EditorChange, type EditorState } from './editor-state.ts';
import { changeFromEdgeChanges, changeFromNodeChanges, onEdgesChange, onNodesChange } from './react-flow-changes.ts';
import { dispatch, useEditorStore } from './useEditorStore.ts';

/*
 *   hook ──▶ invoice ──▶ email
 */
const document: FlowDocument = {
  format: 'onceflow/v1',
  name: 'Order paid',
  nodes: [
    { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
    { id: 'invoice', type: 'http.request', position: { x: 300, y: 0 }, data: { label: 'Create invoice' } },
    { id: 'email', type: 'email.send', position: { x: 600, y: 0 }, data: { label: 'Send email' } },
  ],
  edges: [
    { id: 'e1', source: 'hook', target: 'invoice' },
    { id: 'e2', source: 'invoice', target: 'email' },
  ],
};

type Batch = NodeChange<StepNode>[];

const measured = (id: string): NodeChange<StepNode> => ({ type: 'dimensions', id, dimensions: { width: 240, height: 84 } });
const selected = (id: string, selected = true): NodeChange<StepNode> => ({ type: 'select', id, selected });
const dragged = (id: string, x: number, y: number, dragging: boolean): NodeChange<StepNode> => ({ type: 'position', id, position: { x, y }, dragging });

const opened = () => applyChange(initialEditorState(), { type: 'load', flowId: 'flow_1', document });

function apply(state: EditorState, batch: Batch): EditorState {
  const change = changeFromNodeChanges(batch);
  return change ? applyChange(state, change) : state;
}

describe('a batch of React Flow changes', () => {
  it('becomes one editor change, whatever kinds of change it mixes', () => {
    const change = changeFromNodeChanges([measured('hook'), selected('invoice'), dragged('invoice', 310, 5, true)]);
    expect(change).toEqual({
      type: 'canvas',
      batch: {
        positions: new Map([['invoice', { x: 310, y: 5 }]]),
        sizes: new Map([['hook', { width: 240, height: 84 }]]),
        selectedNodes: new Map([['invoice', true]]),
        drag: 'moving',
      },
    });
  });

  it('is applied in one state transition that keeps untouched steps by reference', () => {
    const before = opened();
    const after = apply(before, [measured('hook'), selected('invoice'), dragged('invoice', 310, 5, true)]);
    expect(after.nodes[0]).toMatchObject({ measured: { width: 240, height: 84 } });
    expect(after.nodes[1]).toMatchObject({ selected: true, position: { x: 310, y: 5 } });
    expect(after.nodes[2]).toBe(before.nodes[2]);
    expect(after.edges).toBe(before.edges);
  });

  it('leaves the state as it was when nothing in it changes anything', () => {
    const before = opened();
    expect(apply(before, [selected('invoice', false)])).toBe(before);
    expect(apply(before, [dragged('invoice', 300, 0, false)]).past).toHaveLength(0);
    expect(changeFromNodeChanges([{ type: 'remove', id: 'invoice' }])).toBeNull();
    expect(changeFromEdgeChanges([{ type: 'remove', id: 'e1' }])).toBeNull();
  });

  it('selects connections in the same way', () => {
    const before = opened();
    const change = changeFromEdgeChanges([{ type: 'select', id: 'e2', selected: true }] satisfies EdgeChange<StepEdge>[]);
    const after = change ? applyChange(before, change) : before;
    expect(after.edges[1]).toMatchObject({ selected: true });
    expect(after.edges[0]).toBe(before.edges[0]);
    expect(after.nodes).toBe(before.nodes);
  });
});

describe('undo history and batches', () => {
  it('records one entry for a drag, however many batches it streams and whatever else they carry', () => {
    const batches: Batch[] = [
      [selected('invoice'), dragged('invoice', 310, 5, true)],
      [dragged('invoice', 320, 10, true), measured('invoice')],
      [dragged('invoice', 330, 20, true)],
      [dragged('invoice', 330, 20, false)],
    ];
    const state = batches.reduce(apply, opened());
    expect(state.past).toHaveLength(1);
    expect(state.nodes[1]?.position).toEqual({ x: 330, y: 20 });
    expect(applyChange(state, { type: 'undo' }).nodes[1]?.position).toEqual({ x: 300, y: 0 });
  });

  it('records one entry for a batch that moves several steps at once', () => {
    const state = apply(opened(), [dragged('invoice', 320, 40, false), dragged('email', 620, 40, false)]);
    expect(state.past).toHaveLength(1);
    expect(state.revision).toBe(opened().revision + 1);
    const undone = applyChange(state, { type: 'undo' });
    expect(undone.nodes.map((node) => node.position)).toEqual(document.nodes.map((node) => node.position));
  });

  it('records nothing for batches that only measure or select', () => {
    const state = [[measured('hook'), measured('invoice')], [selected('email')]].reduce(apply, opened());
    expect(state.past).toHaveLength(0);
    expect(isDirty(state)).toBe(false);
  });
});

describe('the canvas handlers', () => {
  let updates: number;
  let stop: () => void;
  beforeEach(() => {
    dispatch({ type: 'load', flowId: 'flow_1', document });
    updates = 0;
    stop = useEditorStore.subscribe(() => updates++);
  });
  afterEach(() => {
    stop();
    useEditorStore.getState().reset();
  });

  it('update the store once per batch of steps', () => {
    onNodesChange([measured('hook'), measured('invoice'), selected('invoice'), dragged('invoice', 310, 5, true)]);
    expect(updates).toBe(1);
    onNodesChange([dragged('invoice', 330, 20, false)]);
    expect(updates).toBe(2);
    expect(useEditorStore.getState().past).toHaveLength(1);
  });

  it('update the store once per batch of connections, and not at all for what the editor does not keep', () => {
    onEdgesChange([
      { type: 'select', id: 'e1', selected: true },
      { type: 'select', id: 'e2', selected: true },
    ]);
    expect(updates).toBe(1);
    onNodesChange([{ type: 'remove', id: 'invoice' }]);
    onEdgesChange([{ type: 'remove', id: 'e1' }]);
    expect(updates).toBe(1);
  });

  it('dispatch an editor change a test can replay to the same state', () => {
    const batch: Batch = [measured('hook'), selected('email')];
    const before = useEditorStore.getState();
    onNodesChange(batch);
    const replayed = applyChange(before, changeFromNodeChanges(batch) as EditorChange);
    expect(useEditorStore.getState().nodes).toEqual(replayed.nodes);
  });
});
