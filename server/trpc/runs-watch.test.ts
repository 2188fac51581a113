/**
 * `runs.watch` over real HTTP: server-sent events of a running run arrive as they are
 * written, the stream ends once the run settles, a reconnect resumes after the last event
 * id, and the stream is behind the same guard as every other /trpc route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { startApp } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';

interface Change {
  status: string;
  events: { id: number; type: string; nodeId: string | null }[];
  repeatsCounted: number;
}

interface Message {
  event: string;
  id?: string;
  data: string;
}

/** A manual trigger, then a pause long enough to watch the run wait. */
const waitingFlow = {
  format: 'onceflow/v1',
  name: 'Wait a moment',
  sampleInput: {},
  nodes: [
    { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
    { id: 'wait', type: 'delay', position: { x: 200, y: 0 }, data: { for: '1500ms' } },
  ],
  edges: [{ id: 'e1', source: 'start', target: 'wait' }],
};

function watchUrl(base: string, input: { runId: string; lastEventId?: string }) {
  return `${base}/trpc/runs.watch?input=${encodeURIComponent(JSON.stringify(input))}`;
}

/** Reads a server-sent event stream to its end, noting when each message arrived. */
async function readStream(response: Response): Promise<{ message: Message; at: number }[]> {
  const messages: { message: Message; at: number }[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = response.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffered += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const message: Message = { event: 'message', data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'event') message.event = value;
        if (field === 'id') message.id = value;
        if (field === 'data') message.data += value;
      }
      if (block.split('\n').some((line) => !line.startsWith(':'))) messages.push({ message, at: Date.now() });
    }
  }
  return messages;
}

function changesOf(messages: { message: Message }[]): { id: string; change: Change }[] {
  return messages.filter(({ message }) => message.event === 'message').map(({ message }) => ({ id: message.id!, change: JSON.parse(message.data) as Change }));
}

describe.each(testDatabases())('runs.watch on $name', (kind) => {
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    database = await kind.create();
    server = await startApp(database.url);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('pushes the events of a running run as they happen and ends when it settles', async () => {
    const { id: flowId } = await server.services.flows.import(waitingFlow);
    const { runId } = await server.services.runs.start({ flowId, input: {} });
    const opened = Date.now();
    const response = await fetch(watchUrl(server.url, { runId }), { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const messages = await readStream(response);
    const changes = changesOf(messages);
    const events = changes.flatMap(({ change }) => change.events);
    const written = await server.services.runs.timeline(runId, 0, 5000);
    // Every event exactly once, in order, and nothing else.
    expect(events.map((event) => event.id)).toEqual(written.events.map((event) => event.id));
    expect(events.at(-1)?.type).toBe('run.succeeded');
    // The run was seen waiting before it succeeded, so the events were pushed live.
    const statuses = changes.map(({ change }) => change.status);
    expect(statuses).toContain('waiting');
    expect(statuses.at(-1)).toBe('succeeded');
    const waitingAt = messages.find(({ message }) => message.data.includes('"waiting"'))!.at;
    expect(waitingAt - opened).toBeLessThan(1200);
    // Each message names the last event it carries, for a reconnect to resume after.
    for (const { id, change } of changes) {
      if (change.events.length > 0) expect(id).toBe(String(change.events.at(-1)!.id));
    }
    expect(messages.at(-1)!.message.event).toBe('return');
  });

  it('resumes after the last event id a reconnecting client holds', async () => {
    const { id: flowId } = await server.services.flows.import(waitingFlow);
    const { runId } = await server.services.runs.start({ flowId, input: {} });
    const first = changesOf(await readStream(await fetch(watchUrl(server.url, { runId }))));
    const all = first.flatMap(({ change }) => change.events);
    const middle = all[Math.floor(all.length / 2)]!;

    const resumed = changesOf(await readStream(await fetch(watchUrl(server.url, { runId, lastEventId: String(middle.id) }))));
    expect(resumed.flatMap(({ change }) => change.events).map((event) => event.id)).toEqual(all.filter((event) => event.id > middle.id).map((event) => event.id));
    expect(resumed.at(-1)!.change.status).toBe('succeeded');
  });

  it('hands over a repeated delivery of the run\'s event while the run waits, though a repeat writes no event', async () => {
    const { triggers } = await server.services.flows.import({
      format: 'onceflow/v1', name: 'Webhook, then wait', sampleInput: { id: 'evt_1' },
      nodes: [
        { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
        { id: 'wait', type: 'delay', position: { x: 200, y: 0 }, data: { for: '3s' } },
      ],
      edges: [{ id: 'e1', source: 'hook', target: 'wait' }],
    });
    const deliver = async () => {
      const response = await fetch(`${server.url}/hooks/${triggers[0]!.hookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'evt_watched' }) });
      return await response.json() as { runId: string; duplicate?: boolean };
    };
    const { runId } = await deliver();
    const response = await fetch(watchUrl(server.url, { runId }), { headers: { accept: 'text/event-stream' } });
    const reading = readStream(response);
    expect(await deliver()).toMatchObject({ duplicate: true, runId });
    const changes = changesOf(await reading).map(({ change }) => change);

    expect(changes[0]!.repeatsCounted).toBe(0);
    // The repeat reached the watcher while the run still waited, not only with its ending.
    const counted = changes.find((change) => change.repeatsCounted === 1);
    expect(counted?.status).toBe('waiting');
    expect(changes.at(-1)).toMatchObject({ status: 'succeeded', repeatsCounted: 1 });
    // No stored event stands for it: the run's details list it, with the same count.
    expect(changes.flatMap((change) => change.events).map((event) => event.type)).not.toContain('webhook.duplicate');
    const view = await server.services.runs.view(runId);
    expect(view.repeatsCounted).toBe(1);
    expect(view.repeats.map((event) => event.data)).toEqual([{ eventId: 'evt_watched', repeat: 2 }]);
  });

  it('stops watching when the client goes away', async () => {
    const { id: flowId } = await server.services.flows.import({ ...waitingFlow, nodes: [waitingFlow.nodes[0], { ...waitingFlow.nodes[1], data: { for: '30s' } }] });
    const { runId } = await server.services.runs.start({ flowId, input: {} });
    const leaving = new AbortController();
    const response = await fetch(watchUrl(server.url, { runId }), { signal: leaving.signal });
    const reader = response.body!.getReader();
    await reader.read();
    leaving.abort();
    await expect(reader.read()).rejects.toThrow();
    // The run is untouched by the watcher leaving.
    expect((await server.services.runs.view(runId)).run.status).not.toBe('cancelled');
    // The watch behind the stream stops at once when its signal fires, mid-wait included.
    const watcher = new AbortController();
    const changes = server.services.runs.watch(runId, 0, watcher.signal, 60_000);
    expect((await changes.next()).done).toBe(false);
    const next = changes.next();
    watcher.abort();
    expect((await next).done).toBe(true);
    await server.services.runs.cancel(runId);
  });

  it('answers a run that does not exist with an error, not a hanging stream', async () => {
    const messages = await readStream(await fetch(watchUrl(server.url, { runId: 'run_missing' })));
    const error = messages.find(({ message }) => message.event === 'serialized-error');
    expect(error?.message.data).toMatch(/not found|no run/i);
  });
});

describe('runs.watch behind the admin password', () => {
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    database = await testDatabases()[0]!.create();
    server = await startApp(database.url, { ONCEFLOW_ADMIN_PASSWORD: 'correct horse battery' });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('is refused without a session and streams with one', async () => {
    const { id: flowId } = await server.services.flows.import(waitingFlow);
    const { runId } = await server.services.runs.start({ flowId, input: {} });
    const refused = await fetch(watchUrl(server.url, { runId }), { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain('run.queued');

    const login = await fetch(`${server.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'correct horse battery' }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const allowed = await fetch(watchUrl(server.url, { runId }), { headers: { accept: 'text/event-stream', cookie } });
    expect(allowed.status).toBe(200);
    expect(changesOf(await readStream(allowed)).at(-1)!.change.status).toBe('succeeded');
  });
});
