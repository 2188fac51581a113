import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { draftDiffersFromLive, liveStatusWords } from './live-status.ts';

/*
 *   hook ──► check ──(true)──► mail
 */
const live: FlowDocument = {
  format: 'onceflow/v1',
  name: 'Big orders',
  sampleInput: { order: { total: 50 } },
  nodes: [
    { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
    { id: 'check', type: 'condition', position: { x: 260, y: 0 }, data: { left: '{{ trigger.body.order.total }}', op: 'gt', right: 30 } },
    { id: 'mail', type: 'email.send', position: { x: 520, y: 0 }, data: { subject: 'Big one' } },
  ],
  edges: [
    { id: 'e1', source: 'hook', target: 'check', sourceHandle: null },
    { id: 'e2', source: 'check', target: 'mail', sourceHandle: 'true' },
  ],
};

const edit = (change: (copy: FlowDocument) => void): FlowDocument => {
  const copy = structuredClone(live);
  change(copy);
  return copy;
};

describe('draftDiffersFromLive', () => {
  it('is false for the same flow with steps moved, connections renamed and fields in another order', () => {
    const tidied = edit((copy) => {
      copy.nodes = copy.nodes.map((node) => ({ data: node.data, position: { x: node.position.x + 40, y: 90 }, type: node.type, id: node.id }));
      copy.edges = [{ id: 'xy', source: 'hook', target: 'check' }, { id: 'e2', target: 'mail', source: 'check', sourceHandle: 'true' }];
    });
    expect(draftDiffersFromLive(tidied, live)).toBe(false);
  });

  it.each<[string, (copy: FlowDocument) => void]>([
    ['a setting', (copy) => void (copy.nodes[1]!.data.right = 40)],
    ['an exit', (copy) => void (copy.edges[1]!.sourceHandle = 'false')],
    ['a removed step', (copy) => void copy.nodes.pop()],
    ['a new connection', (copy) => void copy.edges.push({ id: 'e3', source: 'hook', target: 'mail' })],
    ['the sample input', (copy) => void (copy.sampleInput = { order: { total: 10 } })],
    ['the name', (copy) => void (copy.name = 'Huge orders')],
  ])('is true after changing %s', (_what, change) => {
    expect(draftDiffersFromLive(edit(change), live)).toBe(true);
  });

  it('words each state for the header', () => {
    expect(liveStatusWords({ state: 'differs', version: 3 })).toBe('Draft differs from v3');
    expect(liveStatusWords({ state: 'up-to-date', version: 3 })).toBe('Live is up to date');
    expect(liveStatusWords({ state: 'unpublished' })).toBe('Not published yet');
  });
});
