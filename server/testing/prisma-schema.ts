/**
 * Reads the models of prisma/schema.prisma, the source of truth for the tables, so tests
 * can hold the migrations (drift.test.ts) and the row mappers (rows.schema.test.ts) to it.
 */
import { readFileSync } from 'node:fs';

export interface SchemaField {
  /** The field's name in the schema, which mappers use for it. */
  name: string;
  column: string;
  /** The scalar type: String, Int, BigInt, … */
  type: string;
  optional: boolean;
}

export interface SchemaModel {
  table: string;
  fields: SchemaField[];
  /** Column lists that must be unique: @id, @@id, @unique, @@unique. */
  uniques: string[][];
  /** Foreign keys: these columns hold another table's columns. */
  references: { columns: string[]; table: string; targetColumns: string[] }[];
}

const SCHEMA_URL = new URL('../../prisma/schema.prisma', import.meta.url);

export function readSchemaModels(text = readFileSync(SCHEMA_URL, 'utf8')): SchemaModel[] {
  const modelNames = new Set([...text.matchAll(/^model\s+(\w+)\s*\{/gm)].map((match) => match[1]!));
  const parsed: (SchemaModel & { name: string; relations: { fields: string[]; model: string; references: string[] }[] })[] = [];
  for (const match of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const body = match[2]!;
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? match[1]!;
    const fields: SchemaField[] = [];
    const uniques: string[][] = [];
    const relations: { fields: string[]; model: string; references: string[] }[] = [];
    for (const raw of body.split('\n')) {
      const line = raw.replace(/\/\/.*$/, '').trim();
      const field = /^(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!field || line.startsWith('@@')) continue;
      const [, name, type, list, optional, attributes = ''] = field;
      if (modelNames.has(type!)) {
        const relation = /@relation\(fields:\s*\[([^\]]+)\],\s*references:\s*\[([^\]]+)\]/.exec(attributes);
        if (relation) relations.push({ fields: splitNames(relation[1]!), model: type!, references: splitNames(relation[2]!) });
        continue;
      }
      if (list) continue;
      const column = /@map\("([^"]+)"\)/.exec(attributes)?.[1] ?? name!;
      fields.push({ name: name!, column, type: type!, optional: optional === '?' });
      if (/@id\b|@unique\b/.test(attributes)) uniques.push([column]);
    }
    const columnOf = (fieldName: string) => fields.find((field) => field.name === fieldName)?.column ?? fieldName;
    for (const block of body.matchAll(/@@(?:id|unique)\(\[([^\]]+)\]/g)) uniques.push(splitNames(block[1]!).map(columnOf));
    parsed.push({
      name: match[1]!, table, fields, uniques, references: [],
      relations: relations.map((relation) => ({ ...relation, fields: relation.fields.map(columnOf) })),
    });
  }
  return parsed.map(({ name: _name, relations, ...model }) => ({
    ...model,
    references: relations.map((relation) => {
      const target = parsed.find((candidate) => candidate.name === relation.model)!;
      const targetColumns = relation.references.map((reference) => target.fields.find((field) => field.name === reference)?.column ?? reference);
      return { columns: relation.fields, table: target.table, targetColumns };
    }),
  }));
}

const splitNames = (list: string) => list.split(',').map((name) => name.trim());
