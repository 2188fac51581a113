import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { applyChange, initialEditorState, type EditorState } from './editor-state.ts';
import { documentFromSnapshot } from './flow-document.ts';
import { createSaveQueue } from './save-queue.ts';

const document: FlowDocument = {
  format: 'onceflow/v1',
  name: 'Order paid',
  nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }],
  edges: [],
};

/**
 * A server whose answers the test releases one by one, in any order it likes. It stores a
 * draft when it answers for it, so whatever is answered last is what it keeps — the way a
 * real server behaves when two saves cross.
 */
function slowServer() {
  const stored = new Map<string, string>();
  const requests: Array<{ key: string; name: string; revision: number; answer(): void; fail(error: Error): void }> = [];
  const send = (key: string, draft: FlowDocument, revision: number) =>
    new Promise<void>((resolve, reject) => {
      requests.push({
        key,
        name: draft.name,
        revision,
        answer: () => {
          stored.set(key, draft.name);
          resolve();
        },
        fail: reject,
      });
    });
  const request = (index: number) => {
    const found = requests[index];
    if (!found) throw new Error(`no request #${index} (only ${requests.length} were sent)`);
    return found;
  };
  return { stored, requests, request, send };
}

/** Lets every promise callback that is ready run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const rename = (state: EditorState, name: string) => applyChange(state, { type: 'updateMeta', meta: { name } });
const open = (state: EditorState) => applyChange(state, { type: 'load', flowId: 'flow_1', document });

/** Hands the canvas to the queue the way the editor does: the draft as it is at that moment. */
function saveCanvas(queue: ReturnType<typeof createSaveQueue<FlowDocument>>, state: EditorState) {
  return queue.save(state.flowId ?? '', state.revision, documentFromSnapshot(state));
}

describe('the save queue', () => {
  it('lets the save made when the editor closes win over an autosave still on its way', async () => {
    const server = slowServer();
    const queue = createSaveQueue(server.send);
    const typed = rename(open(initialEditorState()), 'Order paid, typed');
    const autosave = saveCanvas(queue, typed);
    const typedAgain = rename(typed, 'Order paid, typed again');
    const secondAutosave = saveCanvas(queue, typedAgain);
    const lastWord = rename(typedAgain, 'Order paid, last word');
    const onClose = saveCanvas(queue, lastWord);
    // Closing clears the canvas; the count of revisions goes on.
    expect(applyChange(lastWord, { type: 'close' }).revision).toBe(lastWord.revision);

    await settle();
    expect(server.requests).toHaveLength(1);
    server.request(0).answer();
    await autosave;
    await settle();
    // The waiting autosave was replaced by the newer draft from closing, never sent.
    expect(server.requests.map((request) => request.name)).toEqual(['Order paid, typed', 'Order paid, last word']);
    let secondAnswered = false;
    void secondAutosave.then(() => (secondAnswered = true));
    await settle();
    expect(secondAnswered).toBe(false);
    server.request(1).answer();
    await Promise.all([secondAutosave, onClose]);
    expect(server.stored.get('flow_1')).toBe('Order paid, last word');
  });

  it('never sends a draft older than one already sent, even when it is handed in later', async () => {
    const server = slowServer();
    const queue = createSaveQueue(server.send);
    const older = rename(open(initialEditorState()), 'Older');
    const newer = rename(older, 'Newer');
    const closing = saveCanvas(queue, newer);
    const late = saveCanvas(queue, older);
    let lateAnswered = false;
    void late.then(() => (lateAnswered = true));
    await settle();
    expect(lateAnswered).toBe(false);
    server.request(0).answer();
    await Promise.all([closing, late]);
    await saveCanvas(queue, older);
    expect(server.requests.map((request) => request.name)).toEqual(['Newer']);
    expect(server.stored.get('flow_1')).toBe('Newer');
  });

  it('sends the same revision once, however many ask for it', async () => {
    const server = slowServer();
    const queue = createSaveQueue(server.send);
    const edited = rename(open(initialEditorState()), 'Renamed');
    const asked = [saveCanvas(queue, edited), saveCanvas(queue, edited), saveCanvas(queue, edited)];
    await settle();
    server.request(0).answer();
    await Promise.all(asked);
    expect(server.requests).toHaveLength(1);
  });

  it('keeps a newer visit of the flow ahead of a save left over from the last one', async () => {
    const server = slowServer();
    const queue = createSaveQueue(server.send);
    const firstVisit = rename(open(initialEditorState()), 'First visit');
    const leftOver = saveCanvas(queue, firstVisit);
    const secondVisit = rename(open(applyChange(firstVisit, { type: 'close' })), 'Second visit');
    expect(secondVisit.revision).toBeGreaterThan(firstVisit.revision);
    const current = saveCanvas(queue, secondVisit);
    await settle();
    expect(server.requests).toHaveLength(1);
    server.request(0).answer();
    await leftOver;
    await settle();
    server.request(1).answer();
    await current;
    expect(server.requests.map((request) => request.name)).toEqual(['First visit', 'Second visit']);
    expect(server.stored.get('flow_1')).toBe('Second visit');
  });

  it('saves different flows side by side', async () => {
    const server = slowServer();
    const queue = createSaveQueue(server.send);
    const one = queue.save('flow_1', 1, { ...document, name: 'One' });
    const two = queue.save('flow_2', 2, { ...document, name: 'Two' });
    await settle();
    expect(server.requests.map((request) => request.key)).toEqual(['flow_1', 'flow_2']);
    server.request(1).answer();
    await two;
    expect(queue.isSaving('flow_1')).toBe(true);
    expect(queue.isSaving('flow_2')).toBe(false);
    server.request(0).answer();
    await one;
  });

  it('answers a failed save with the outcome of the newer draft that carries its changes', async () => {
    const server = slowServer();
    const queue = createSaveQueue(server.send);
    const first = queue.save('flow_1', 1, { ...document, name: 'First' });
    const second = queue.save('flow_1', 2, { ...document, name: 'Second' });
    await settle();
    server.request(0).fail(new Error('The server could not be reached.'));
    await settle();
    server.request(1).answer();
    await expect(first).resolves.toBeUndefined();
    await expect(second).resolves.toBeUndefined();
    expect(server.stored.get('flow_1')).toBe('Second');
  });

  it('reports a failure when nothing newer follows, and sends the same draft again when asked', async () => {
    const server = slowServer();
    const queue = createSaveQueue(server.send);
    const failing = queue.save('flow_1', 1, { ...document, name: 'Draft' });
    await settle();
    server.request(0).fail(new Error('The server could not be reached.'));
    await expect(failing).rejects.toThrow('could not be reached');
    expect(queue.isSaving('flow_1')).toBe(false);
    const retried = queue.save('flow_1', 1, { ...document, name: 'Draft' });
    await settle();
    server.request(1).answer();
    await retried;
    expect(server.stored.get('flow_1')).toBe('Draft');
  });

  it('counts a send that throws at once as a failed save', async () => {
    const queue = createSaveQueue<FlowDocument>(() => {
      throw new Error('Not now.');
    });
    await expect(queue.save('flow_1', 1, document)).rejects.toThrow('Not now.');
    expect(queue.isSaving('flow_1')).toBe(false);
  });

  it('tells listeners when a flow starts and stops saving, once each for a whole chain of saves', async () => {
    const server = slowServer();
    const queue = createSaveQueue(server.send);
    const seen: boolean[] = [];
    const stop = queue.subscribe(() => seen.push(queue.isSaving('flow_1')));
    const first = queue.save('flow_1', 1, document);
    const second = queue.save('flow_1', 2, document);
    await settle();
    server.request(0).answer();
    await first;
    await settle();
    server.request(1).answer();
    await second;
    await settle();
    expect(seen).toEqual([true, false]);
    stop();
    const third = queue.save('flow_1', 3, document);
    await settle();
    server.request(2).answer();
    await third;
    expect(seen).toEqual([true, false]);
  });
});
