import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { applyChange, HISTORY_LIMIT, initialEditorState, isDirty, type EditorChange, type EditorState } from './editor-state.ts';
import { documentFromSnapshot } from './flow-document.ts';

/*
 *   hook ──▶ invoice
 */
const document: FlowDocument = {
  format: 'onceflow/v1',
  name: 'Order paid',
  sampleInput: { order: { id: '4417' } },
  nodes: [
    { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { label: 'Shop', eventId: '{{ trigger.body.id }}' } },
    { id: 'invoice', type: 'http.request', position: { x: 300, y: 0 }, data: { label: 'Create invoice' } },
  ],
  edges: [{ id: 'e1', source: 'hook', target: 'invoice' }],
};

function run(...changes: EditorChange[]): EditorState {
  return changes.reduce(applyChange, applyChange(initialEditorState(), { type: 'load', flowId: 'flow_1', document }));
}

const add = (type: string, after?: string): EditorChange => ({
  type: 'add',
  step: { type, position: { x: 600, y: 0 }, data: { label: type } },
  ...(after ? { after: { source: after } } : {}),
});

const positions = (entries: Array<[string, number, number]>) => new Map(entries.map(([id, x, y]) => [id, { x, y }]));

describe('load', () => {
  it('shows the document and starts clean, with no history', () => {
    const state = run();
    expect(state.nodes.map((node) => node.id)).toEqual(['hook', 'invoice']);
    expect(state.meta.sampleInput).toEqual({ order: { id: '4417' } });
    expect(state.past).toEqual([]);
    expect(isDirty(state)).toBe(false);
  });

  it('gives back the same nodes and edges as a document', () => {
    const back = documentFromSnapshot(run());
    expect(back.nodes).toEqual(document.nodes);
    expect(back.edges).toEqual(document.edges);
  });
});

describe('add', () => {
  it('adds a step with a readable unique id, selects it and marks the flow unsaved', () => {
    const state = run(add('http.request'));
    const added = state.nodes.at(-1);
    expect(added).toMatchObject({ id: 'http-request', type: 'http.request', selected: true });
    expect(isDirty(state)).toBe(true);
    expect(run(add('http.request'), add('http.request')).nodes.at(-1)?.id).toBe('http-request-2');
  });

  it('connects the new step after the given one', () => {
    const state = run(add('email.send', 'invoice'));
    expect(state.edges.at(-1)).toMatchObject({ source: 'invoice', target: 'email-send' });
  });

  it('deselects what was selected before', () => {
    const state = run({ type: 'selectOnly', nodeIds: ['hook'] }, add('delay'));
    expect(state.nodes.filter((node) => node.selected).map((node) => node.id)).toEqual(['delay']);
  });
});

describe('add after a step that already leads on', () => {
  it('inserts between them instead of starting a parallel branch: hook → new → invoice', () => {
    const state = run(add('transform', 'hook'));
    expect(state.edges.map((edge) => `${edge.source}→${edge.target}`).sort()).toEqual(['hook→transform', 'transform→invoice']);
    // One undo step puts the old connection back.
    expect(applyChange(state, { type: 'undo' }).edges.map((edge) => `${edge.source}→${edge.target}`)).toEqual(['hook→invoice']);
  });

  it('moves the steps that follow aside when asked, in the same undo step', () => {
    const state = run({ ...(add('transform', 'hook') as Extract<EditorChange, { type: 'add' }>), room: { nodeIds: ['invoice'], dx: 320 } });
    expect(state.nodes.find((node) => node.id === 'invoice')?.position).toEqual({ x: 620, y: 0 });
    expect(applyChange(state, { type: 'undo' }).nodes.find((node) => node.id === 'invoice')?.position).toEqual({ x: 300, y: 0 });
  });

  it('passes on through the "Yes" exit of a condition put in between', () => {
    const state = run(add('condition', 'hook'));
    expect(state.edges.find((edge) => edge.source === 'condition')).toMatchObject({ target: 'invoice', sourceHandle: 'true', label: 'Yes' });
  });

  it('leaves the flow as it was around a trigger, which nothing can lead into', () => {
    const state = run(add('trigger.schedule', 'hook'));
    expect(state.edges.map((edge) => `${edge.source}→${edge.target}`)).toEqual(['hook→invoice']);
  });
});

describe('replace', () => {
  /*
   *   start ──▶ invoice      (start: a new flow's untouched Manual trigger)
   */
  const fresh: FlowDocument = {
    ...document,
    nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Start' } }, document.nodes[1]!],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }],
  };
  const replace: EditorChange = { type: 'replace', nodeId: 'start', step: { type: 'trigger.webhook', id: 'webhook', position: { x: 0, y: 0 }, data: { label: 'Webhook', eventId: '{{ trigger.body.id }}' } } };

  it('puts a step of another kind in the place of one, keeping its connections', () => {
    const state = [replace].reduce(applyChange, applyChange(initialEditorState(), { type: 'load', flowId: 'flow_1', document: fresh }));
    expect(state.nodes.map((node) => `${node.id}:${node.type}`)).toEqual(['webhook:trigger.webhook', 'invoice:http.request']);
    expect(state.nodes[0]).toMatchObject({ selected: true, position: { x: 0, y: 0 } });
    expect(state.edges).toEqual([{ id: 'e1', source: 'webhook', target: 'invoice' }]);
    expect(isDirty(state)).toBe(true);
    expect(applyChange(state, { type: 'undo' }).nodes[0]).toMatchObject({ id: 'start', type: 'trigger.manual' });
  });

  it('does nothing for a step that is not there', () => {
    const state = run();
    expect(applyChange(state, { ...replace, nodeId: 'nope' })).toBe(state);
  });
});

describe('move', () => {
  it('records one undo step for a whole drag', () => {
    const state = run(
      { type: 'move', positions: positions([['invoice', 310, 5]]), dragging: true },
      { type: 'move', positions: positions([['invoice', 320, 10]]), dragging: true },
      { type: 'move', positions: positions([['invoice', 330, 20]]), dragging: false },
    );
    expect(state.nodes[1]?.position).toEqual({ x: 330, y: 20 });
    expect(state.past).toHaveLength(1);
    expect(applyChange(state, { type: 'undo' }).nodes[1]?.position).toEqual({ x: 300, y: 0 });
  });

  it('keeps unmoved steps by reference, so only the moved one re-renders', () => {
    const before = run();
    const after = applyChange(before, { type: 'move', positions: positions([['invoice', 1, 1]]), dragging: true });
    expect(after.nodes[0]).toBe(before.nodes[0]);
    expect(after.nodes[1]).not.toBe(before.nodes[1]);
  });

  it('does not count a drop in the same place as a change', () => {
    const state = run({ type: 'move', positions: positions([['invoice', 300, 0]]), dragging: false });
    expect(state.past).toHaveLength(0);
    expect(isDirty(state)).toBe(false);
  });
});

describe('connect', () => {
  it('adds a connection with an id naming both ends', () => {
    const state = run(add('email.send'), { type: 'connect', connection: { source: 'invoice', target: 'email-send' } });
    expect(state.edges.at(-1)).toEqual({ id: 'e-invoice-email-send', source: 'invoice', target: 'email-send' });
  });

  it.each([
    ['a step to itself', { source: 'invoice', target: 'invoice' }],
    ['into a trigger', { source: 'invoice', target: 'hook' }],
    ['the same connection twice', { source: 'hook', target: 'invoice' }],
  ])('refuses %s', (_name, connection) => {
    const before = run();
    expect(applyChange(before, { type: 'connect', connection })).toBe(before);
  });

  it('keeps which exit of a condition a connection leaves from', () => {
    const state = run(add('condition', 'invoice'), add('delay'), {
      type: 'connect',
      connection: { source: 'condition', sourceHandle: 'false', target: 'delay' },
    });
    expect(state.edges.at(-1)).toMatchObject({ source: 'condition', sourceHandle: 'false', target: 'delay' });
    const refused = applyChange(state, { type: 'connect', connection: { source: 'condition', target: 'invoice' } });
    expect(refused).toBe(state);
  });
});

describe('delete', () => {
  it('removes a step together with its connections', () => {
    const state = run({ type: 'delete', nodeIds: ['invoice'], edgeIds: [] });
    expect(state.nodes.map((node) => node.id)).toEqual(['hook']);
    expect(state.edges).toEqual([]);
  });

  it('removes a single connection', () => {
    const state = run({ type: 'delete', nodeIds: [], edgeIds: ['e1'] });
    expect(state.nodes).toHaveLength(2);
    expect(state.edges).toEqual([]);
  });

  it('does nothing (and records nothing) for unknown ids', () => {
    const before = run();
    expect(applyChange(before, { type: 'delete', nodeIds: ['nope'], edgeIds: [] })).toBe(before);
  });
});

describe('undo and redo', () => {
  it('walks back and forth through add, connect and delete', () => {
    const added = run(add('email.send'));
    const connected = applyChange(added, { type: 'connect', connection: { source: 'invoice', target: 'email-send' } });
    const deleted = applyChange(connected, { type: 'delete', nodeIds: ['invoice'], edgeIds: [] });

    const undone1 = applyChange(deleted, { type: 'undo' });
    expect(undone1.nodes.map((node) => node.id)).toEqual(['hook', 'invoice', 'email-send']);
    expect(undone1.edges).toHaveLength(2);
    const undone2 = applyChange(undone1, { type: 'undo' });
    expect(undone2.edges).toHaveLength(1);
    const undone3 = applyChange(undone2, { type: 'undo' });
    expect(undone3.nodes).toHaveLength(2);
    expect(applyChange(undone3, { type: 'undo' })).toBe(undone3);

    const redone = applyChange(applyChange(applyChange(undone3, { type: 'redo' }), { type: 'redo' }), { type: 'redo' });
    expect(redone.nodes.map((node) => node.id)).toEqual(['hook', 'email-send']);
    expect(redone.edges).toEqual([]);
    expect(applyChange(redone, { type: 'redo' })).toBe(redone);
  });

  it('forgets the redo path once something new is done', () => {
    const state = run(add('delay'), { type: 'undo' }, add('transform'));
    expect(state.future).toEqual([]);
    expect(applyChange(state, { type: 'redo' })).toBe(state);
  });

  it('folds typing in one field into one undo step', () => {
    const typed = ['h', 'ht', 'http'].map(
      (url): EditorChange => ({ type: 'updateData', nodeId: 'invoice', field: 'request.url', data: { label: 'Create invoice', request: { url } } }),
    );
    const state = run(...typed);
    expect(state.past).toHaveLength(1);
    expect(applyChange(state, { type: 'undo' }).nodes[1]?.data).toEqual({ label: 'Create invoice' });
  });

  it('does not record selection or measuring', () => {
    const state = run(
      { type: 'selectOnly', nodeIds: ['hook'] },
      { type: 'measure', sizes: new Map([['hook', { width: 220, height: 64 }]]) },
    );
    expect(state.past).toHaveLength(0);
    expect(isDirty(state)).toBe(false);
    expect(state.nodes[0]).toMatchObject({ selected: true, measured: { width: 220, height: 64 } });
  });

  it(`keeps at most ${HISTORY_LIMIT} steps`, () => {
    const moves = Array.from({ length: HISTORY_LIMIT + 20 }, (_, i): EditorChange => ({
      type: 'move',
      positions: positions([['invoice', i + 1, 0]]),
      dragging: false,
    }));
    expect(run(...moves).past).toHaveLength(HISTORY_LIMIT);
  });
});

describe('saving', () => {
  it('stays dirty when the flow changed again while a save was on its way', () => {
    const edited = run(add('delay'));
    const savingRevision = edited.revision;
    const editedAgain = applyChange(edited, add('transform'));
    const saved = applyChange(editedAgain, { type: 'saved', revision: savingRevision });
    expect(isDirty(saved)).toBe(true);
    expect(isDirty(applyChange(saved, { type: 'saved', revision: saved.revision }))).toBe(false);
  });

  it('counts undo as a change to save', () => {
    const saved = applyChange(run(add('delay')), { type: 'saved', revision: 1 });
    expect(isDirty(applyChange(saved, { type: 'undo' }))).toBe(true);
  });
});

describe('closing and opening again', () => {
  it('starts a clean canvas but goes on counting revisions', () => {
    const edited = run(add('delay'));
    const closed = applyChange(edited, { type: 'close' });
    expect(closed).toMatchObject({ flowId: null, nodes: [], past: [], revision: edited.revision });
    const reopened = applyChange(closed, { type: 'load', flowId: 'flow_1', document });
    expect(reopened.revision).toBe(edited.revision);
    expect(reopened.nodes.map((node) => node.id)).toEqual(['hook', 'invoice']);
    expect(isDirty(reopened)).toBe(false);
  });

  it('cannot be marked saved by a save confirmed late, from the visit before', () => {
    const firstVisit = run(add('delay'));
    const secondVisit = applyChange(applyChange(applyChange(firstVisit, { type: 'close' }), { type: 'load', flowId: 'flow_1', document }), add('transform'));
    const lateAnswer = applyChange(secondVisit, { type: 'saved', revision: firstVisit.revision });
    expect(isDirty(lateAnswer)).toBe(true);
  });
});
