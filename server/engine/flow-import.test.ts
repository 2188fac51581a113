/**
 * Importing a flow file: a flow the editor can fix opens as a draft with its problems;
 * only a file that cannot be opened is refused, and then nothing is stored. Same
 * assertions on SQLite and PostgreSQL (TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';

/*
 *   hook ──► charge (side effect, no key)
 *   hook ──► ghost  (no such step)
 */
const fixable = {
  format: 'onceflow/v1',
  name: 'Needs a key',
  nodes: [
    { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { label: 'Shop', eventId: '{{ trigger.body.id }}' } },
    { id: 'charge', type: 'http.request', position: { x: 260, y: 0 }, data: { label: 'Charge card', sideEffect: true, request: { method: 'POST', url: 'http://127.0.0.1:9/charge' } } },
  ],
  edges: [
    { id: 'e1', source: 'hook', target: 'charge' },
    { id: 'e2', source: 'hook', target: 'ghost' },
  ],
};

for (const kind of testDatabases()) {
  describe(`importing flow files (${kind.name})`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
    });
    afterAll(async () => {
      await engine.close();
      await database.drop();
    });

    it('opens a fixable file as an unpublished draft listing every problem, and still refuses to publish it', async () => {
      const flows = engine.services.flows;
      const imported = await flows.import(fixable);
      expect(imported.version).toBeNull();
      expect(imported.triggers).toEqual([]);
      const errors = imported.problems.filter((problem) => problem.severity === 'error');
      expect(errors.map((problem) => problem.nodeId ?? problem.edgeId)).toEqual(expect.arrayContaining(['charge', 'e2']));

      const flow = await flows.get(imported.id);
      expect(flow.versions).toEqual([]);
      expect(flow.draft.nodes.map((node) => node.id)).toEqual(['hook', 'charge']);
      expect(flow.draft.edges.map((edge) => edge.id)).toEqual(['e1', 'e2']);
      expect(flow.problems.filter((problem) => problem.severity === 'error')).toHaveLength(errors.length);
      await expect(flows.publish(imported.id)).rejects.toThrow(/cannot be published yet/);
      expect(await flows.versions(imported.id)).toEqual([]);
    });

    it('publishes a file without errors at once', async () => {
      const nodes: Array<{ id: string; data: Record<string, unknown> }> = fixable.nodes;
      const fixed = {
        ...fixable,
        name: 'Has a key',
        nodes: nodes.map((node) => (node.id === 'charge' ? { ...node, data: { ...node.data, key: '{{ trigger.body.id }}:charge' } } : node)),
        edges: [fixable.edges[0]!],
      };
      const imported = await engine.services.flows.import(fixed);
      expect(imported.version).toBe(1);
      expect(imported.triggers.map((trigger) => trigger.nodeId)).toEqual(['hook']);
    });

    const unopenable: Array<[string, unknown, RegExp]> = [
      ['a list', [fixable], /holds no flow document/],
      ['no format', { ...fixable, format: undefined }, /does not say "format": "onceflow\/v1"/],
      ['another format', { ...fixable, format: 'n8n' }, /format "n8n", which is not an Onceflow flow format/],
      ['a newer format', { ...fixable, format: 'onceflow/v2' }, /made by a newer Onceflow \(format onceflow\/v2\)/],
      ['steps that cannot be drawn', { ...fixable, nodes: 'many' }, /cannot be opened, because one part of it is damaged/],
    ];
    for (const [what, document, message] of unopenable) {
      it(`refuses ${what} with one sentence and stores nothing`, async () => {
        const before = await engine.services.flows.list();
        const refusal = engine.services.flows.import(document);
        await expect(refusal).rejects.toThrow(message);
        await refusal.catch((error: Error) => expect(error.message).not.toMatch(/\. .*\. .*\. /));
        expect(await engine.services.flows.list()).toEqual(before);
      });
    }
  });
}
