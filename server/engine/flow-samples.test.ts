/**
 * Named samples travel with the flow: import, the saved draft, published versions and
 * export keep them as written. Same assertions on SQLite and PostgreSQL (TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHarness } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';

const samples = [
  { name: 'order 4417', input: { order: { id: '4417', total: 120 } } },
  { name: 'order with two lines', input: { order: { id: '4418', lines: [{ sku: 'a' }, { sku: 'b' }] } } },
];

const document = {
  format: 'onceflow/v1',
  name: 'Samples travel',
  sampleInput: { order: { id: '1' } },
  samples,
  nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }],
  edges: [],
};

for (const kind of testDatabases()) {
  describe(`named samples in stored flows (${kind.name})`, () => {
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

    it('keeps them through import, publish and export, and through a saved draft', async () => {
      const flows = engine.services.flows;
      const imported = await flows.import(document);
      expect(imported.version).toBe(1);
      expect((await flows.export(imported.id)).samples).toEqual(samples);
      expect((await flows.export(imported.id, 1)).samples).toEqual(samples);

      const renamed = [{ ...samples[0]!, name: 'refund' }, samples[1]!];
      const saved = await flows.saveDraft(imported.id, { ...document, samples: renamed });
      expect(saved.problems).toEqual([]);
      expect((await flows.get(imported.id)).draft.samples).toEqual(renamed);
      const again = await flows.import(await flows.export(imported.id));
      expect((await flows.export(again.id)).samples).toEqual(renamed);
    });

    it('saves a draft whose sample names clash but lists the problem and refuses to publish it', async () => {
      const flows = engine.services.flows;
      const { id } = await flows.create({ name: 'Clashing samples', document });
      const clash = { ...document, samples: [samples[0]!, { ...samples[1]!, name: 'order 4417' }] };
      const saved = await flows.saveDraft(id, clash);
      expect(saved.problems.map((problem) => problem.message)).toContain(
        'Two samples are called "order 4417". Give each sample a name of its own, so test runs and proofs know which one to use.',
      );
      expect((await flows.get(id)).draft.samples).toHaveLength(2);
      await expect(flows.publish(id)).rejects.toThrow(/Two samples are called "order 4417"/);
    });
  });
}
