/**
 * Batches travel as one array parameter, so a statement's text is the same for one row
 * or a thousand and PostgreSQL prepares it once (db.ts names statements by text). A list
 * of values is a PostgreSQL array (`= ANY(?)`) or SQLite JSON text (`json_each`); a batch
 * of rows (an array of arrays) is JSON text on both, one array per row.
 */
import type { Dialect } from './db.ts';

/** The same statement, written once per dialect (built when the module loads). */
export type PerDialect = Readonly<Record<Dialect, string>>;

export function perDialect(build: (dialect: Dialect) => string): PerDialect {
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
 */
export function batchRows(dialect: Dialect, columns: readonly BatchColumn[]): string {
  if (dialect === 'postgresql') {
    const fields = columns.map(([name, type], index) => `(value ->> ${index})::${type} AS ${name}`).join(', ');
    return `(SELECT ${fields} FROM json_array_elements(?::json) AS batch_rows(value)) AS batch`;
  }
  const fields = columns.map(([name], index) => `value ->> ${index} AS ${name}`).join(', ');
  return `(SELECT ${fields} FROM json_each(?)) AS batch`;
}

/*
 * A lone surrogate (half of an emoji, say) cannot be stored as UTF-8. Given one as a
 * parameter of its own, SQLite keeps its bytes and PostgreSQL's driver writes U+FFFD;
 * inside JSON text SQLite does the same as before, but PostgreSQL refuses the text, so
 * there it becomes U+FFFD first. Either way a key is stored the same through both paths.
 * JSON.stringify writes a lone surrogate, and only one, as a `\udXXX` escape.
 */
const ESCAPED_SURROGATE = /\\ud[89a-f]/i;
const LONE_SURROGATE = /\p{Cs}/gu;
const wellFormed = (_key: string, value: unknown) => (typeof value === 'string' ? value.replace(LONE_SURROGATE, '\uFFFD') : value);

/** The JSON text an array parameter travels as (see db.ts). */
export function batchText(values: readonly unknown[], dialect: Dialect): string {
  const text = JSON.stringify(values);
  return dialect === 'postgresql' && ESCAPED_SURROGATE.test(text) ? JSON.stringify(values, wellFormed) : text;
}
