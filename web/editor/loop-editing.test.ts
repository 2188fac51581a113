import { describe, expect, it } from 'vitest';
import { addStepChange, STEP_HEIGHT, STEP_WIDTH } from './add-kind.ts';
import { drawableNodes, openingViewport } from './canvas-view.ts';
import { deletionQuestion } from './delete-steps.ts';
import { applyCanvasBatch, connectionProblem, deleteElements, type Snapshot, type StepNode } from './editor-changes.ts';
import { applyChange, initialEditorState, type EditorChange } from './editor-state.ts';
import { documentFromSnapshot } from './flow-document.ts';
import { BODY_INSET, LOOP_MIN_SIZE, loopAt, loopSizes, menuPlace } from './loop-layout.ts';
import { leafFields, loopFieldTree, loopList, sampleLists, stepsBefore, suggestKeysFrom } from './sample-fields.ts';

const node = (id: string, type: string, x: number, y: number, extra: Partial<StepNode> = {}): StepNode => ({ id, type, position: { x, y }, data: {}, ...extra });

/*
 *   start ──▶ loop (for.each at 400, 100) ──▶ after
 *              └ welcome ──▶ follow          (body, positions relative to the loop)
 */
const flow = (selected: string | null = null): Snapshot => ({
  nodes: [
    node('start', 'trigger.manual', 0, 100),
    node('loop', 'for.each', 400, 100, { data: { label: 'Each lead', items: '{{ trigger.body.leads }}' } }),
    node('welcome', 'email.send', BODY_INSET.x, BODY_INSET.y, { parentId: 'loop' }),
    node('follow', 'delay', BODY_INSET.x + 320, BODY_INSET.y, { parentId: 'loop' }),
    node('after', 'transform', 1400, 100),
  ].map((step) => ({ ...step, selected: step.id === selected })),
  edges: [
    { id: 'e1', source: 'start', target: 'loop' },
    { id: 'e2', source: 'welcome', target: 'follow' },
    { id: 'e3', source: 'loop', target: 'after' },
  ],
  meta: { name: 'Leads' },
});

function added(state: Snapshot, change: EditorChange | null): StepNode {
  if (!change) throw new Error('expected a change');
  const next = applyChange({ ...initialEditorState(), ...state }, change);
  const fresh = next.nodes.find((step) => !state.nodes.some((old) => old.id === step.id));
  if (!fresh) throw new Error('nothing was added');
  return fresh;
}

describe('adding steps inside a For each', () => {
  it('puts a step dropped on the loop into its body, placed relative to the loop', () => {
    const at = { x: 400 + 300, y: 100 + 200 };
    const step = added(flow(), addStepChange(flow(), 'http.request', { at }));
    expect(step.parentId).toBe('loop');
    expect(step.position).toEqual({ x: 300 - STEP_WIDTH / 2, y: 200 - STEP_HEIGHT / 2 });
    // In the saved document it is a body step with the same relative position.
    const saved = documentFromSnapshot({ ...flow(), nodes: [...flow().nodes, step] }).nodes.find((n) => n.id === step.id);
    expect(saved).toMatchObject({ parentId: 'loop', position: { x: 180, y: 164 } });
  });

  it('keeps a step dropped near the loop header below it, and one dropped outside at the top level', () => {
    const onHeader = added(flow(), addStepChange(flow(), 'transform', { at: { x: 420, y: 110 } }));
    expect(onHeader.parentId).toBe('loop');
    expect(onHeader.position).toEqual(BODY_INSET);
    const outside = added(flow(), addStepChange(flow(), 'transform', { at: { x: 100, y: 600 } }));
    expect(outside.parentId).toBeUndefined();
    // Triggers and loops never go inside a loop, even when dropped on one.
    const loopOnLoop = added(flow(), addStepChange(flow(), 'for.each', { at: { x: 700, y: 300 } }));
    expect(loopOnLoop.parentId).toBeUndefined();
  });

  it('adds a clicked step after the body\'s last step while the loop is selected, connected to it', () => {
    const state = flow('loop');
    const change = addStepChange(state, 'http.request', {});
    expect(change).toMatchObject({ type: 'add', after: { source: 'follow' }, step: { parentId: 'loop', position: { x: BODY_INSET.x + 640, y: BODY_INSET.y } } });
    const next = applyChange({ ...initialEditorState(), ...state }, change!);
    expect(next.edges.find((edge) => edge.source === 'follow')?.target).toBe('request');
    // The loop grows to hold the new step.
    expect(loopSizes(next.nodes).get('loop')!.width).toBeGreaterThan(BODY_INSET.x + 640 + STEP_WIDTH);
  });

  it('adds a clicked step in between two body steps when the first is selected, moving only body steps', () => {
    const change = addStepChange(flow('welcome'), 'transform', {});
    expect(change).toMatchObject({ after: { source: 'welcome' }, step: { parentId: 'loop', position: { x: BODY_INSET.x + 320, y: BODY_INSET.y } }, room: { nodeIds: ['follow'] } });
  });

  it('starts an empty loop\'s body at its first place, unconnected', () => {
    const empty: Snapshot = { ...flow('loop'), nodes: flow('loop').nodes.filter((step) => step.parentId === undefined), edges: [] };
    const change = addStepChange(empty, 'transform', {});
    expect(change).toEqual({ type: 'add', step: expect.objectContaining({ parentId: 'loop', position: BODY_INSET }) });
  });

  it('puts a trigger or a loop chosen while a body step is selected after the loop, not inside it', () => {
    const change = addStepChange(flow('welcome'), 'for.each', {});
    expect(change).toMatchObject({ after: { source: 'loop' } });
    expect(change?.type === 'add' && change.step.parentId).toBe(undefined);
    // Right of the whole loop, not of its header's corner.
    expect(change?.type === 'add' && change.step.position.x).toBeGreaterThanOrEqual(400 + LOOP_MIN_SIZE.width);
  });
});

describe('the loop on the canvas', () => {
  it('is sized to hold its body and finds the loop under a point', () => {
    const sizes = loopSizes(flow().nodes);
    expect(sizes.get('loop')).toEqual({ width: Math.max(LOOP_MIN_SIZE.width, BODY_INSET.x + 320 + 240 + 48), height: LOOP_MIN_SIZE.height });
    expect(loopAt(flow().nodes, { x: 410, y: 110 })?.id).toBe('loop');
    expect(loopAt(flow().nodes, { x: 390, y: 110 })).toBeNull();
    const drawn = drawableNodes(flow().nodes).find((step) => step.id === 'loop');
    expect(drawn).toMatchObject({ width: sizes.get('loop')!.width, height: sizes.get('loop')!.height });
    // The same object while the size stays, so React Flow does not redraw the loop.
    const nodes = flow().nodes;
    expect(drawableNodes(nodes)[1]).toBe(drawableNodes(nodes)[1]);
  });

  it('counts a loop at its full size when deciding how a flow opens', () => {
    // Wide enough to read when fitted only if the loop were one step wide.
    const wide: StepNode[] = [node('start', 'trigger.manual', 0, 0), node('loop', 'for.each', 320, 0), ...[0, 1, 2, 3].map((i) => node(`s${i}`, 'transform', BODY_INSET.x + i * 320, BODY_INSET.y, { parentId: 'loop' }))];
    expect(openingViewport(wide, { width: 800, height: 700 })).toMatchObject({ zoom: 1 });
    expect(openingViewport(wide.slice(0, 2), { width: 800, height: 700 })).toBeNull();
  });

  it('keeps a dragged body step inside its loop, below the header', () => {
    const next = applyCanvasBatch(flow(), { positions: new Map([['welcome', { x: -200, y: 10 }], ['after', { x: -200, y: 10 }]]) });
    expect(next.nodes.find((step) => step.id === 'welcome')?.position).toEqual(BODY_INSET);
    expect(next.nodes.find((step) => step.id === 'after')?.position).toEqual({ x: -200, y: 10 });
  });

  it('takes a step let go over the loop into its body, relative to the loop and listed after it, as one undo step', () => {
    const before = { ...initialEditorState(), ...flow() };
    const over = { x: 400 + 300, y: 100 + 130 };
    const moving = applyChange(before, { type: 'canvas', batch: { positions: new Map([['after', over]]), drag: 'moving' } });
    expect(moving.nodes.find((step) => step.id === 'after')?.parentId).toBeUndefined();
    const dropped = applyChange(moving, { type: 'canvas', batch: { positions: new Map([['after', over]]), drag: 'dropped' } });
    expect(dropped.nodes.at(-1)).toMatchObject({ id: 'after', parentId: 'loop', position: { x: 300, y: 130 } });
    expect(dropped.past).toHaveLength(1);
    expect(applyChange(dropped, { type: 'undo' }).nodes.find((step) => step.id === 'after')).toMatchObject({ position: { x: 1400, y: 100 } });
    expect(applyChange(dropped, { type: 'undo' }).nodes.find((step) => step.id === 'after')?.parentId).toBeUndefined();
    // Let go elsewhere, or a trigger let go over the loop: it stays where it is.
    const elsewhere = applyChange(before, { type: 'canvas', batch: { positions: new Map([['after', { x: 1500, y: 100 }]]), drag: 'dropped' } });
    expect(elsewhere.nodes.find((step) => step.id === 'after')?.parentId).toBeUndefined();
    const trigger = applyChange(before, { type: 'canvas', batch: { positions: new Map([['start', over]]), drag: 'dropped' } });
    expect(trigger.nodes.find((step) => step.id === 'start')?.parentId).toBeUndefined();
  });

  it('refuses connections across the loop\'s edge, saying why', () => {
    expect(connectionProblem(flow(), { source: 'loop', target: 'welcome' })).toContain('start by themselves for every item');
    expect(connectionProblem(flow(), { source: 'follow', target: 'after' })).toContain('connect only to each other');
    expect(connectionProblem(flow(), { source: 'follow', target: 'welcome' })).toBeNull();
    expect(connectionProblem(flow(), { source: 'start', target: 'after' })).toBeNull();
  });

  it('deletes a loop with its body, and asks first naming how many steps go with it', () => {
    const next = deleteElements(flow(), ['loop'], []);
    expect(next.nodes.map((step) => step.id)).toEqual(['start', 'after']);
    expect(next.edges).toEqual([]);
    expect(deletionQuestion(flow().nodes, ['loop'])).toBe('Delete “Each lead” and the 2 steps inside it? Undo brings them back.');
    expect(deletionQuestion(flow().nodes, ['loop', 'welcome'])).toBe('Delete “Each lead” and the 1 step inside it? Undo brings them back.');
    expect(deletionQuestion(flow().nodes, ['welcome', 'after'])).toBeNull();
  });
});

describe('fields inside a loop', () => {
  const sample = { batch: 'b1', order: { lines: [{ sku: 'A-1', qty: 2, price: { net: 10 } }] }, tags: ['x', 'y'] };

  it('offers item.<field> from the first item of the list the loop names, and loop.index', () => {
    const list = loopList('{{ trigger.body.order.lines }}', sample);
    const fields = loopFieldTree(list);
    const names = (entries: typeof fields): string[] => entries.flatMap((entry) => [entry.name, ...names(entry.children)]);
    expect(names(fields)).toEqual(['item', 'item.sku', 'item.qty', 'item.price', 'item.price.net', 'loop', 'loop.index']);
    expect(fields[0]!.children[0]).toMatchObject({ placeholder: '{{ item.sku }}', preview: '"A-1"' });
    expect(fields.at(-1)!.children[0]).toMatchObject({ placeholder: '{{ loop.index }}' });
    // A list of plain values: the item itself.
    expect(loopFieldTree(loopList('{{ trigger.body.tags }}', sample))[0]).toMatchObject({ name: 'item', placeholder: '{{ item }}', preview: '"x"' });
  });

  it('offers only loop.index when the sample does not hold the list', () => {
    expect(loopList('{{ steps.fetch.output.rows }}', sample)).toBeUndefined();
    expect(loopList('{{ trigger.body.batch }}', sample)).toBeUndefined();
    expect(leafFields(loopFieldTree(undefined)).map((entry) => entry.name)).toEqual(['loop.index']);
  });

  it('lists the sample\'s lists for the loop\'s Items', () => {
    expect(sampleLists(sample)).toEqual([
      { name: 'order.lines', placeholder: '{{ trigger.body.order.lines }}', count: 1 },
      { name: 'tags', placeholder: '{{ trigger.body.tags }}', count: 2 },
    ]);
  });

  it('counts the steps before the loop as before its body steps', () => {
    expect(stepsBefore(flow().nodes, flow().edges, 'follow').map((step) => step.id)).toEqual(['start', 'welcome']);
  });
});

describe('keys suggested inside a loop', () => {
  it('come from the item, so that each item gets its own key', () => {
    const fields = loopFieldTree(loopList('{{ trigger.body.leads }}', { batch: 'b1', leads: [{ id: 'lead_1', email: 'ada@example.com', name: 'Ada' }] }));
    expect(suggestKeysFrom(fields, 'Welcome email')).toEqual(['{{ item.id }}:welcome-email', '{{ item.email }}:welcome-email']);
    expect(suggestKeysFrom(loopFieldTree(loopList('{{ trigger.body.lines }}', { lines: [{ sku: 'A-1', qty: 1 }] })), 'Check stock')).toEqual(['{{ item.sku }}:check-stock']);
  });
});

describe('where the "Add a step inside" list opens', () => {
  const page = { width: 1280, height: 800 };
  it('opens under the button, its right edge on the button\'s', () => {
    expect(menuPlace({ top: 100, bottom: 130, right: 1000 }, 240, page)).toEqual({ top: 134, right: 280 });
  });
  it('opens over the button when it would run off the bottom of the page', () => {
    expect(menuPlace({ top: 700, bottom: 730, right: 1000 }, 240, page)).toEqual({ top: 456, right: 280 });
  });
  it('ends on the page when there is room on neither side', () => {
    expect(menuPlace({ top: 150, bottom: 180, right: 1000 }, 240, { width: 1280, height: 300 })).toEqual({ top: 56, right: 280 });
    expect(menuPlace({ top: 150, bottom: 180, right: 1000 }, 400, { width: 1280, height: 300 })).toEqual({ top: 4, right: 280 });
  });
  it('keeps its right edge on the page when the button is partly off it', () => {
    expect(menuPlace({ top: 100, bottom: 130, right: 1400 }, 240, page).right).toBe(0);
  });
  it('stays over the canvas when the button is past its edge', () => {
    const canvas = { top: 60, bottom: 760, left: 280, right: 900 };
    // Past the right edge: its right edge on the canvas's.
    expect(menuPlace({ top: 100, bottom: 130, right: 1100 }, 240, page, canvas)).toEqual({ top: 134, right: 380 });
    // Above the top: under the canvas's top.
    expect(menuPlace({ top: -80, bottom: -50, right: 800 }, 240, page, canvas)).toEqual({ top: 64, right: 480 });
    // Inside: where the button is.
    expect(menuPlace({ top: 100, bottom: 130, right: 800 }, 240, page, canvas)).toEqual({ top: 134, right: 480 });
  });
});
