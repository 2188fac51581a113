/** Drafts keep unfinished work; publishing and importing refuse flows with errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { createSqliteDatabase } from '../testing/databases.ts';

describe('flow drafts and versions', () => {
  const database = createSqliteDatabase();
  let engine: EngineHarness;
  beforeAll(async () => { engine = await startEngine(database.url); });
  afterAll(async () => { await engine.close(); await database.drop(); });

  const unfinished = {
    format: 'onceflow/v1', name: 'Half built',
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'call', type: 'http.request', position: { x: 100, y: 0 }, data: { sideEffect: true, key: '{{ now }}', request: { method: 'POST', url: '' } } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'call' }],
  };

  it('saves a draft with problems and reports them, but will not publish it', async () => {
    const { id } = await engine.services.flows.create({ name: 'Half built' });
    const saved = await engine.services.flows.saveDraft(id, unfinished);
    expect(saved.problems.filter((problem) => problem.severity === 'error').map((problem) => problem.nodeId)).toContain('call');
    const flow = await engine.services.flows.get(id);
    expect(flow.draft.nodes.map((node) => node.id)).toEqual(['start', 'call']);
    await expect(engine.services.flows.publish(id)).rejects.toThrow(/cannot be published yet/);
    expect(await engine.services.flows.versions(id)).toEqual([]);
  });

  it('refuses a document that is not a flow at all', async () => {
    const { id } = await engine.services.flows.create({ name: 'Other' });
    await expect(engine.services.flows.saveDraft(id, { hello: 'world' })).rejects.toThrow(/not an Onceflow flow document/);
  });

  it('publishes immutable, numbered versions and keeps webhook ids across them', async () => {
    const document = { ...unfinished, nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'call', type: 'http.request', position: { x: 100, y: 0 }, data: { sideEffect: true, key: '{{ trigger.body.id }}:call', request: { method: 'POST', url: 'http://127.0.0.1:9/x' } } },
    ], edges: [{ id: 'e1', source: 'hook', target: 'call' }] };
    const { id } = await engine.services.flows.create({ name: 'Versions', document });
    const first = await engine.services.flows.publish(id);
    const hook = (await engine.services.flows.get(id)).triggers[0]!.hookId;
    const second = await engine.services.flows.publish(id);
    expect([first.version, second.version]).toEqual([1, 2]);
    expect((await engine.services.flows.get(id)).triggers[0]!.hookId).toBe(hook);
    expect((await engine.services.flows.export(id, 1)).nodes).toEqual((await engine.services.flows.export(id, 2)).nodes);
  });
});
