/**
 * No drift between prisma/schema.prisma and the committed SQL migrations: every model,
 * column and unique index of the schema exists in a freshly migrated database, on each
 * engine. Prisma's migrate cannot run here, so this test is what keeps them in step.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { readSchemaModels } from '../testing/prisma-schema.ts';
import type { Db } from './db.ts';
import { migrate } from './migrate.ts';

async function actualColumns(db: Db, table: string): Promise<string[]> {
  if (db.dialect === 'sqlite') {
    return (await db.all<{ name: string }>(`SELECT name FROM pragma_table_info(?)`, [table])).map((row) => row.name);
  }
  const rows = await db.all<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`,
    [table],
  );
  return rows.map((row) => row.column_name);
}

async function actualUniques(db: Db, table: string): Promise<string[][]> {
  if (db.dialect === 'sqlite') {
    const indexes = await db.all<{ name: string; unique: number }>(`SELECT name, "unique" FROM pragma_index_list(?)`, [table]);
    const result: string[][] = [];
    for (const index of indexes.filter((row) => row.unique)) {
      const columns = await db.all<{ name: string }>(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`, [index.name]);
      result.push(columns.map((column) => column.name));
    }
    // An INTEGER PRIMARY KEY is the rowid and has no index of its own.
    const pk = await db.all<{ name: string; pk: number; type: string }>(`SELECT name, pk, type FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, [table]);
    if (pk.length) result.push(pk.map((column) => column.name));
    return result;
  }
  const rows = await db.all<{ indexdef: string }>(
    `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexdef LIKE 'CREATE UNIQUE%'`,
    [table],
  );
  return rows.map((row) => /\(([^)]+)\)/.exec(row.indexdef)![1]!.split(',').map((column) => column.trim().replace(/"/g, '')));
}

const models = readSchemaModels().map((model) => ({ ...model, columns: model.fields.map((field) => field.column) }));

it('reads every model of the schema', () => {
  expect(models.map((model) => model.table)).toEqual(
    expect.arrayContaining(['flows', 'flow_versions', 'runs', 'checkpoints', 'claims', 'timeline_events', 'inbound_events', 'entity_states', 'secrets']),
  );
  expect(models.find((model) => model.table === 'claims')?.uniques).toContainEqual(['scope', 'key']);
});

for (const kind of testDatabases()) {
  describe(`schema drift on ${kind.name}`, () => {
    const database = useMigratedDatabase(kind);

    it('migrating again applies nothing', async () => {
      expect(await migrate(database())).toEqual([]);
    });

    for (const model of models) {
      it(`has table ${model.table} with every column and unique index`, async () => {
        const columns = await actualColumns(database(), model.table);
        expect(columns.length, `table ${model.table} is missing`).toBeGreaterThan(0);
        for (const column of model.columns) expect(columns, `${model.table}.${column}`).toContain(column);
        const uniques = (await actualUniques(database(), model.table)).map((set) => set.join(','));
        for (const unique of model.uniques) expect(uniques, `unique (${unique}) on ${model.table}`).toContain(unique.join(','));
      });
    }
  });
}
