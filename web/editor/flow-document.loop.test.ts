import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { documentFromSnapshot, snapshotFromDocument } from './flow-document.ts';

describe('a For each body between the document and the canvas', () => {
  it('keeps parentId both ways, with the loop listed before the steps inside it', () => {
    const node = (id: string, type: string, parentId?: string) => ({ id, type, position: { x: 0, y: 0 }, data: {}, ...(parentId ? { parentId } : {}) });
    const flow: FlowDocument = {
      format: 'onceflow/v1', name: 'Loop',
      nodes: [node('start', 'trigger.manual'), node('loop', 'for.each'), node('welcome', 'http.request', 'loop'), node('follow', 'transform', 'loop'), node('after', 'transform')],
      edges: [],
    };
    // Listed child-first, as a file written by hand may be.
    const document = { ...flow, nodes: [flow.nodes[2]!, ...flow.nodes.filter((_, index) => index !== 2)] };
    const snapshot = snapshotFromDocument(document);
    const ids = snapshot.nodes.map((node) => node.id);
    expect(ids.indexOf('loop')).toBeLessThan(ids.indexOf('welcome'));
    expect(snapshot.nodes.find((node) => node.id === 'welcome')?.parentId).toBe('loop');
    const back = documentFromSnapshot(snapshot);
    expect(back.nodes.find((node) => node.id === 'welcome')?.parentId).toBe('loop');
    expect(back.nodes.find((node) => node.id === 'follow')?.parentId).toBe('loop');
    expect(back.nodes.find((node) => node.id === 'after')).not.toHaveProperty('parentId');
  });
});

describe('a flow’s settings between the document and the canvas', () => {
  it('keeps them whole, including ones this editor has no form for', () => {
    const flow = {
      format: 'onceflow/v1', name: 'Settings', nodes: [], edges: [],
      settings: { retryFailedRuns: ['1m', '10m'], alerts: { enabled: true, on: { failed: true, needsReview: false } } },
    } as FlowDocument;
    expect(documentFromSnapshot(snapshotFromDocument(flow)).settings).toEqual({ retryFailedRuns: ['1m', '10m'], alerts: { enabled: true, on: { failed: true, needsReview: false } } });
    expect(documentFromSnapshot(snapshotFromDocument({ ...flow, settings: {} }))).not.toHaveProperty('settings');
  });
});
