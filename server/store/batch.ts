/**
 * Batches travel as one array parameter, so a statement's text is the same for one row
 * or a thousand and PostgreSQL prepares it once (db.ts names statements by text). A list
 * of values is a PostgreSQL array (`= ANY(?)`) or SQLite JSON text (`json_each`); a batch
 * of rows (an array of arrays) is JSON text on both, one array per row.
 */
import type { Dialect, Sql } from './db.ts';

/** The same statement (its text, or a text with how to order its parameters), written once per dialect when the module loads. */
export type PerDialect<T = string> = Readonly<Record<Dialect, T>>;

export function perDialect<T = string>(build: (dialect: Dialect) => T): PerDialect<T> {
  return { sqlite: build('sqlite'), postgresql: build('postgresql') };
}

/** `column` equals one of the values of one array parameter. */
export function isOneOf(dialect: Dialect, column: string): string {
  return dialect === 'postgresql' ? `${column} = ANY(?)` : `${column} IN (SELECT value FROM json_each(?))`;
}

/** A column of a batch of rows: its name in the statement, and its PostgreSQL type. */
export type BatchColumn = readonly [name: string, postgresType: 'text' | 'int' | 'bigint'];

/**
 * A FROM item named `batch` whose columns are read from one parameter holding the rows.
 * Both scans yield rows in array order and an INSERT … SELECT from one of them alone
 * writes them in that order, as a VALUES list would: timeline events get their ids in
 * batch order without the cost of a sort.
 *
 * On PostgreSQL the rows are `jsonb`, parsed once: on `json` every `value ->> n` parses
 * its whole row again, which for the webhook batch's nineteen fields was a quarter of the
 * database's CPU (inbound-batch.ts reads its rows the same way).
 */
export function batchRows(dialect: Dialect, columns: readonly BatchColumn[]): string {
  if (dialect === 'postgresql') {
    const fields = columns.map(([name, type], index) => `(value ->> ${index})::${type} AS ${name}`).join(', ');
    return `(SELECT ${fields} FROM jsonb_array_elements(?::jsonb) AS batch_rows(value)) AS batch`;
  }
  const fields = columns.map(([name], index) => `value ->> ${index} AS ${name}`).join(', ');
  return `(SELECT ${fields} FROM json_each(?)) AS batch`;
}

/**
 * Every list's items in one list, in order (a VALUES list's parameters, a batch's rows).
 * A loop rather than `Array.prototype.flat` or `flatMap`, which follow the specification's
 * generic steps item by item: on Node 20 `flat` took 5.6–5.9 µs for four rows of six values
 * and this 0.3–0.4 µs, and a run's timeline rows go through here on every delivery.
 */
export function concatRows<T>(lists: readonly (readonly T[])[]): T[] {
  const all: T[] = [];
  for (const list of lists) for (const item of list) all.push(item);
  return all;
}

/** Rows a SQLite batch may hold to go as a VALUES list (rowsInsert) rather than as JSON text. */
const VALUES_LIST_ROWS = 8;

/**
 * An insert of a batch of rows: `batched`, the statement reading its rows from one JSON
 * parameter (batchRows), or on SQLite, for a small batch, the same insert with its rows as
 * a VALUES list (`head VALUES (…), (…) tail`, one text per row count, built once). SQLite
 * parses a batch's JSON text at every call, which for the one or two rows a delivery or a
 * step writes cost more than the rows: one timeline event took 5.9–9.6 µs from JSON text
 * and 3.3–3.7 µs from a VALUES list; past a few rows the two cost the same. Rows are
 * inserted in list order either way, so events get their ids in batch order.
 */
export function rowsInsert(batched: PerDialect, head: string, width: number, tail = '') {
  const row = `(${Array.from({ length: width }, () => '?').join(', ')})`;
  const valuesLists: string[] = [];
  return async (sql: Sql, rows: readonly (readonly unknown[])[]): Promise<void> => {
    if (rows.length === 0) return;
    if (sql.dialect === 'sqlite' && rows.length <= VALUES_LIST_ROWS) {
      const text = (valuesLists[rows.length] ??= `${head} VALUES ${Array.from({ length: rows.length }, () => row).join(', ')}${tail}`);
      await sql.run(text, concatRows(rows));
      return;
    }
    await sql.run(batched[sql.dialect], [rows]);
  };
}

/*
 * A lone surrogate (half of an emoji, say) cannot be stored as UTF-8. Drivers disagree on
 * what to do with one: PostgreSQL's writes U+FFFD, better-sqlite3 keeps its raw bytes on
 * Node 20 and writes U+FFFD on Node 22 and later, and inside JSON text SQLite keeps the
 * bytes while PostgreSQL refuses the text. So every string becomes well-formed (U+FFFD in
 * place of a lone surrogate) before any driver sees it, here and in db.ts: a key is then
 * stored and found the same through every path, on every database and Node version.
 * JSON.stringify writes a lone surrogate, and only one, as a `\udXXX` escape.
 */
const ESCAPED_SURROGATE = /\\ud[89a-f]/i;
const wellFormed = (_key: string, value: unknown) => (typeof value === 'string' ? value.toWellFormed() : value);

/** The JSON text an array parameter travels as (see db.ts). */
export function batchText(values: readonly unknown[]): string {
  const text = JSON.stringify(values);
  return ESCAPED_SURROGATE.test(text) ? JSON.stringify(values, wellFormed) : text;
}
