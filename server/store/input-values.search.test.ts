/**
 * Searchable input values as each database stores them (input-values.ts): a pair is found
 * exactly — whatever characters it holds, never by a part of it or under another path —
 * a run whose transaction rolled back is never found, and on SQLite migration 0021 carries
 * the values written before it into the full-text table.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import type { Db } from './db.ts';
import { INPUT_TERM_MATCH } from './input-values.ts';
import { loadMigrations } from './migrate.ts';
import { listRuns } from './run-list.ts';
import { insertRun, type NewRun } from './runs.ts';

const run = (id: string, input: unknown): NewRun => ({
  id, flowId: 'flow_1', versionId: 'ver_1', input, triggerKind: 'manual', triggerNode: null, eventId: null, replayOf: null, createdAt: 1, createdBy: 'alice',
});

const found = async (db: Db, path: string, value: string) => (await listRuns(db, { input: { path, value }, limit: 50 })).map((each) => each.id);

for (const kind of testDatabases()) {
  describe(`searchable input values on ${kind.name}`, () => {
    const database = useMigratedDatabase(kind);

    it('finds a pair exactly, whatever it holds, and never by a part of it', async () => {
      const db = database();
      const odd = {
        name: 'Zoë "quoted" AND * NEAR(x) ✓', 'a b': 'c d', 'dots.in.key': 'x', note: "it's 100%", empty: '', nothing: null,
        order: { id: 4417, total: 12.5, paid: true, lines: [{ sku: 'TEA-250' }] },
      };
      await insertRun(db, run('run_odd', odd));
      await insertRun(db, run('run_plain', { name: 'Zoë', order: { id: '44' } }));
      expect(await found(db, 'name', 'Zoë "quoted" AND * NEAR(x) ✓')).toEqual(['run_odd']);
      expect(await found(db, 'a b', 'c d')).toEqual(['run_odd']);
      expect(await found(db, 'dots.in.key', 'x')).toEqual(['run_odd']);
      expect(await found(db, 'note', "it's 100%")).toEqual(['run_odd']);
      expect(await found(db, 'order.id', '4417')).toEqual(['run_odd']);
      expect(await found(db, 'order.total', '12.5')).toEqual(['run_odd']);
      expect(await found(db, 'order.paid', 'true')).toEqual(['run_odd']);
      expect(await found(db, 'order.lines.0.sku', 'TEA-250')).toEqual(['run_odd']);
      // Only the whole pair: a part of a value, another case, another path, what is not searched.
      expect(await found(db, 'name', 'Zoë')).toEqual(['run_plain']);
      expect(await found(db, 'order.id', '44')).toEqual(['run_plain']);
      expect(await found(db, 'order.lines.0.sku', 'tea-250')).toEqual([]);
      expect(await found(db, 'note', 'it')).toEqual([]);
      expect(await found(db, 'id', '4417')).toEqual([]);
      expect(await found(db, 'empty', '')).toEqual([]);
      expect(await found(db, 'nothing', 'null')).toEqual([]);
    });

    it('never finds a run whose transaction rolled back, beside one committed with it', async () => {
      const db = database();
      const refused = new Error('refused');
      const outcomes = await Promise.allSettled([
        db.transaction(async (tx) => {
          await insertRun(tx, run('run_rolled_back', { order: { id: 'RB-1' }, shared: 'both' }));
          throw refused;
        }),
        db.transaction((tx) => insertRun(tx, run('run_kept', { order: { id: 'RB-2' }, shared: 'both' }))),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled']);
      expect(await found(db, 'order.id', 'RB-1')).toEqual([]);
      expect(await found(db, 'order.id', 'RB-2')).toEqual(['run_kept']);
      expect(await found(db, 'shared', 'both')).toEqual(['run_kept']);
    });

    if (kind.name === 'sqlite') {
      it('carries the values written before migration 0021 into the full-text table', async () => {
        const db = database();
        await db.exec('DROP TABLE run_input_terms');
        await insertRunWithoutValues(db, 'run_legacy', 901);
        await db.run(`INSERT INTO run_input_values (path, value, run_seq) VALUES ('order.id', 'L-1', 901), ('name', 'Zoë ✓', 901), ('order.id', 'L-2', 902)`);
        await db.exec(loadMigrations('sqlite').find((migration) => migration.name === '0021_input_value_terms')!.sql);
        expect(await found(db, 'order.id', 'L-1')).toEqual(['run_legacy']);
        expect(await found(db, 'name', 'Zoë ✓')).toEqual(['run_legacy']);
        expect(await db.get(`SELECT COUNT(*) AS n FROM run_input_terms WHERE run_input_terms MATCH ${INPUT_TERM_MATCH}`, ['order.id', 'L-2'])).toEqual({ n: 1 });
        expect(await db.get(`SELECT COUNT(*) AS n FROM run_input_values`)).toEqual({ n: 0 });
      });
    }
  });
}

/** A run row as one written before migration 0021 would be, its values written apart. */
async function insertRunWithoutValues(db: Db, id: string, seq: number): Promise<void> {
  await db.run(
    `INSERT INTO runs (id, seq, flow_id, version_id, status, input, trigger_kind, attempt, lease_fence, created_at, created_by) VALUES (?, ?, 'flow_1', 'ver_1', 'succeeded', '{}', 'manual', 1, 0, 1, 'alice')`,
    [id, seq],
  );
}
