/**
 * The hand-written row mappers (rows.ts) against prisma/schema.prisma: every column of a
 * model is read (or named as deliberately unread), every field comes out under the
 * schema's name with the schema's type — text as strings, Int and BigInt as numbers,
 * JSON text parsed, an optional column's NULL as null — on each engine. The types are
 * held to the generated Prisma models at compile time too (`npm run typecheck`).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  AlertDefaultsModel, AlertOutboxModel, CheckpointModel, ClaimModel, EntityStateModel, ExpiredKeyModel, FlowModel, FlowVersionModel, InboundEventModel,
  RetiredRunNumberModel, RunInputValueModel, RunModel, SecretModel, OperationModel, OperationRunModel, TimelineEventModel, TriggerModel, WebhookRejectionModel, WorkerModel,
} from './generated/sqlite/models.ts';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { readSchemaModels, type SchemaModel } from '../testing/prisma-schema.ts';
import type { Sql } from './db.ts';
import {
  ROW_MAPPERS, type AlertDefaultsRow, type AlertOutboxRow, type EntityStateRow, type ExpiredKeyRow, type InboundEventRow, type InputValueRow, type RejectionRow, type RetiredRunNumberRow,
  type RowMapper, type WorkerRow,
} from './rows.ts';
import type {
  CheckpointRow, ClaimRow, FlowRow, FlowVersionRow, OperationRow, OperationRunRow, RunRow, SecretRow, StoredTriggerRow, TimelineEvent,
} from './types.ts';

/** A model's fields as a mapper hands them out: BigInt as number, JSON text as any value. */
type Mapped<Model, Json extends keyof Model> = {
  [K in keyof Model]: K extends Json ? unknown : Model[K] extends bigint ? number : Model[K] extends bigint | null ? number | null : Model[K];
};
/** Field names that differ between a row type and its model (minus deliberately unread ones). */
type NameDrift<Row, Model, Unread extends keyof Model> = Exclude<keyof Model, keyof Row | Unread> | Exclude<keyof Row, keyof Model>;
/** Fields whose row type does not fit the model's, or says never null where the column may be. */
type TypeDrift<Row, Model, Json extends keyof Model> = {
  [K in keyof Row & keyof Model]-?: Required<Row>[K] extends Mapped<Model, Json>[K]
    ? null extends Mapped<Model, Json>[K] ? (null extends Required<Row>[K] ? never : K) : never
    : K;
}[keyof Row & keyof Model];
/** `true` when a row type matches its model; otherwise the names of the fields that drifted. */
type Matches<Row, Model, Json extends keyof Model = never, Unread extends keyof Model = never> =
  [NameDrift<Row, Model, Unread> | TypeDrift<Row, Model, Json>] extends [never] ? true : NameDrift<Row, Model, Unread> | TypeDrift<Row, Model, Json>;

it('types every row as its generated Prisma model (checked by the compiler)', () => {
  expectTypeOf<Matches<RunRow, RunModel, 'input', 'waitsForRunId' | 'autoRerunAt' | 'autoReruns'>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<ClaimRow, ClaimModel, 'request' | 'output'>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<CheckpointRow, CheckpointModel, 'output'>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<TimelineEvent, TimelineEventModel, 'data'>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<FlowRow, FlowModel, never, 'pausedAt' | 'pausedBy'>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<FlowVersionRow, FlowVersionModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<StoredTriggerRow, TriggerModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<InboundEventRow, InboundEventModel, never, 'headers' | 'body' | 'repeats'>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<RejectionRow, WebhookRejectionModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<EntityStateRow, EntityStateModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<SecretRow, SecretModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<WorkerRow, WorkerModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<ExpiredKeyRow, ExpiredKeyModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<InputValueRow, RunInputValueModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<RetiredRunNumberRow, RetiredRunNumberModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<OperationRow, OperationModel, 'request' | 'preview'>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<OperationRunRow, OperationRunModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<AlertOutboxRow, AlertOutboxModel>>().toEqualTypeOf<true>();
  expectTypeOf<Matches<AlertDefaultsRow, AlertDefaultsModel, 'settings'>>().toEqualTypeOf<true>();
});

const models = readSchemaModels();
const modelOf = (table: string): SchemaModel => {
  const model = models.find((candidate) => candidate.table === table);
  if (!model) throw new Error(`the schema has no model for table ${table}`);
  return model;
};
const columnsOf = (mapper: RowMapper) => mapper.columns.split(',').map((column) => column.trim());

/**
 * A stored row with a value of the column's type in every column, distinct per column and
 * per variant, so a mapper that reads one column into another field is caught. Variant
 * `nulls` leaves every optional column NULL. A column that refers to another table holds
 * that table's sample value.
 */
function sampleRow(model: SchemaModel, mapper: RowMapper, variant: 'filled' | 'nulls'): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  model.fields.forEach((field, index) => {
    const reference = model.references.find((candidate) => candidate.columns.includes(field.column));
    if (reference) {
      const target = modelOf(reference.table);
      const targetColumn = reference.targetColumns[reference.columns.indexOf(field.column)]!;
      row[field.column] = sampleRow(target, mapperOf(target.table), variant)[targetColumn];
      return;
    }
    if (field.optional && variant === 'nulls') row[field.column] = null;
    else if (field.type === 'String') {
      const text = `${model.table}.${field.column}:${variant}`;
      row[field.column] = mapper.json.includes(field.column) ? JSON.stringify({ sample: text }) : text;
    } else if (field.type === 'Int') row[field.column] = 100 + index + (variant === 'nulls' ? 50 : 0);
    else if (field.type === 'BigInt') row[field.column] = 1_750_000_000_000 + index + (variant === 'nulls' ? 50 : 0);
    else throw new Error(`no sample for ${field.type} (${model.table}.${field.column}); teach this test the type`);
  });
  return row;
}

/** What the mapper must hand out for a sample row: schema field names, JSON parsed. */
function expectedFields(model: SchemaModel, mapper: RowMapper, row: Record<string, unknown>): Record<string, unknown> {
  const expected: Record<string, unknown> = {};
  for (const field of model.fields) {
    if (mapper.unread.includes(field.column)) continue;
    const value = row[field.column];
    expected[field.name] = typeof value === 'string' && mapper.json.includes(field.column) ? JSON.parse(value) : value;
  }
  return expected;
}

const mapperOf = (table: string): RowMapper => {
  const mapper = ROW_MAPPERS.find((candidate) => candidate.table === table);
  if (!mapper) throw new Error(`rows.ts has no mapper for table ${table}`);
  return mapper;
};

async function insert(sql: Sql, table: string, row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await sql.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, Object.values(row));
}

/** Inserts the tables a model refers to first, so foreign keys hold. */
async function insertWithReferences(sql: Sql, model: SchemaModel, variant: 'filled' | 'nulls'): Promise<Record<string, unknown>> {
  for (const reference of model.references) await insertWithReferences(sql, modelOf(reference.table), variant);
  const row = sampleRow(model, mapperOf(model.table), variant);
  await insert(sql, model.table, row);
  return row;
}

it('has one mapper for every model of the schema', () => {
  expect(ROW_MAPPERS.map((mapper) => mapper.table).sort()).toEqual(models.map((model) => model.table).sort());
});

for (const mapper of ROW_MAPPERS) {
  it(`reads every column of ${mapper.table}, and only columns it has`, () => {
    const model = modelOf(mapper.table);
    const schemaColumns = model.fields.map((field) => field.column);
    expect([...columnsOf(mapper), ...mapper.unread].sort()).toEqual([...schemaColumns].sort());
    for (const column of mapper.json) {
      expect(columnsOf(mapper), `${mapper.table}.${column} is read as JSON`).toContain(column);
      expect(model.fields.find((field) => field.column === column)?.type, `${mapper.table}.${column} holds JSON text`).toBe('String');
    }
  });
}

for (const kind of testDatabases()) {
  describe(`row mappers on ${kind.name}`, () => {
    const database = useMigratedDatabase(kind);

    for (const mapper of ROW_MAPPERS) {
      it(`maps a stored ${mapper.table} row to the schema's fields and types, NULLs as null`, async () => {
        const model = modelOf(mapper.table);
        const db = database();
        // Each case writes its rows in a transaction that it undoes, leaving the tables empty.
        const undo = new Error('undo');
        await db.transaction(async (tx) => {
          for (const variant of ['filled', 'nulls'] as const) {
            const row = await insertWithReferences(tx, model, variant);
            const key = model.uniques[0]!;
            const stored = await tx.get(
              `SELECT ${mapper.columns} FROM ${mapper.table} WHERE ${key.map((column) => `${column} = ?`).join(' AND ')}`,
              key.map((column) => row[column]),
            );
            expect(stored, `the ${variant} sample row of ${mapper.table}`).toBeDefined();
            expect(mapper.read(stored!)).toStrictEqual(expectedFields(model, mapper, row));
          }
          throw undo;
        }).catch((error: unknown) => {
          if (error !== undo) throw error;
        });
      });
    }
  });
}
