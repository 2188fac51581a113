/**
 * The searchable values of a run's trigger input (migration 0012). An index on every JSON
 * path of every input is not something either database offers in the same way, so each
 * run's scalar leaves are written as (path, value) pairs when it is created, and
 * "order.id = 4417" becomes one probe of an index:
 *
 * - PostgreSQL: rows of `run_input_values`, whose (path, value, run_seq) key answers it;
 * - SQLite: one row of the full-text table `run_input_terms` per run, numbered by the run,
 *   each pair a term (migration 0021), written for all the runs of a group commit at once.
 *   The key placed a run's values at as many pages as it has values, each rewritten at
 *   every commit; full-text terms are written a commit at a time and merged later, for
 *   far less CPU (engine/ARCHITECTURE.md, *Finding a run by what it did*).
 *
 * Limits keep a large body from costing a large write: the shallowest leaves first (a
 * breadth-first walk), at most MAX_LEAVES of them, no deeper than MAX_DEPTH, and values
 * and paths no longer than MAX_TEXT characters (longer ones are left out rather than cut,
 * since a cut value would match searches it does not equal).
 */
import { batchRows, isOneOf, perDialect } from './batch.ts';
import type { Sql } from './db.ts';

/** Leaves kept per run (default: 64). */
export const MAX_LEAVES = 64;
/** Nesting levels walked below the body (default: 8). */
export const MAX_DEPTH = 8;
/** Longest path or value kept, in characters (default: 200). */
export const MAX_TEXT = 200;
/** Fields waiting to be walked at once: a list of 100,000 items costs no more than this. */
const MAX_PENDING = 1024;

export interface InputValue {
  path: string;
  value: string;
}

/**
 * What of a run's input is searched: a webhook run's input is an envelope
 * `{ body, headers, receivedAt }` (engine/run-executor.ts `triggerContext`) whose body is
 * what the sender sent; every other run's input is its body.
 */
export function searchedBody(run: { input: unknown; triggerKind: string }): unknown {
  const input = run.input;
  const isEnvelope = run.triggerKind === 'webhook' && typeof input === 'object' && input !== null && 'body' in input;
  return isEnvelope ? (input as { body: unknown }).body : input;
}

/** A scalar as the text it is searched by; null for what is not searched (null, empty, too long). */
export function searchText(value: unknown): string | null {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else if (typeof value === 'boolean') text = String(value);
  else return null;
  // PostgreSQL text cannot hold a NUL character: such a value is not searchable, on either database.
  return text.length > 0 && text.length <= MAX_TEXT && !text.includes('\u0000') ? text : null;
}

/** The body's scalar leaves as (path, value), shallowest first, within the limits above. */
export function inputValues(body: unknown): InputValue[] {
  const values: InputValue[] = [];
  // `{"a.b": 1, "a": {"b": 1}}` spells one path twice; the first is kept.
  const seen = new Set<string>();
  let level: [path: string, value: unknown][] = [['', body]];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const next: [string, unknown][] = [];
    for (const [path, value] of level) {
      if (value !== null && typeof value === 'object') {
        const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
        for (const [name, child] of entries) {
          if (next.length === MAX_PENDING) break;
          next.push([path ? `${path}.${name}` : name, child]);
        }
        continue;
      }
      // A bare scalar body has no path to search it by.
      const text = path ? searchText(value) : null;
      if (text === null || path.length > MAX_TEXT || path.includes('\u0000') || seen.has(path)) continue;
      seen.add(path);
      values.push({ path, value: text });
      if (values.length === MAX_LEAVES) return values;
    }
    level = next;
  }
  return values;
}

/**
 * One (path, value) pair as a full-text term on SQLite, in SQL: the hex of `path NUL
 * value`, so the tokenizer sees one word of letters and digits whatever the text holds,
 * and a term matches exactly its pair (neither holds a NUL). It is made by the database
 * from the statement's parameters, after the secrets' masker has replaced their values in
 * them (db.ts), as every stored text is; migration 0021 builds the same terms.
 */
export const inputTermSql = (path: string, value: string) => `lower(hex((${path}) || char(0) || (${value})))`;

/** The full-text query that finds the runs with one pair (two parameters: path, value): the term quoted. */
export const INPUT_TERM_MATCH = `'"' || ${inputTermSql('?', '?')} || '"'`;

/** PostgreSQL: a run's (path, value) rows. */
const INSERT_VALUES = `INSERT INTO run_input_values (path, value, run_seq) SELECT path, value, ? FROM ${batchRows('postgresql', [['path', 'text'], ['value', 'text']])}`;

/**
 * SQLite: the full-text rows of a batch of runs, each `[seq, [[path, value], …]]`. Written
 * at the commit, one statement for all the runs of a group commit (db.ts `batchAtCommit`):
 * FTS5 writes out the terms it holds at every savepoint and every statement after a write,
 * a segment each, and one segment a commit costs far less than one a run.
 */
const INSERT_TERMS = `INSERT INTO run_input_terms (rowid, terms)
  SELECT run.value ->> 0, (SELECT group_concat(${inputTermSql('pair.value ->> 0', 'pair.value ->> 1')}, ' ') FROM json_each(run.value -> 1) AS pair)
  FROM json_each(?) AS run`;

/** Writes a new run's searchable values (PostgreSQL: one statement; SQLite: a row of its commit's batch); nothing when it has none. */
export async function insertInputValues(sql: Sql, runSeq: number, values: readonly InputValue[]): Promise<void> {
  if (values.length === 0) return;
  const pairs = values.map((value) => [value.path, value.value]);
  if (sql.dialect === 'sqlite') await sql.batchAtCommit(INSERT_TERMS, [runSeq, pairs]);
  else await sql.run(INSERT_VALUES, [runSeq, pairs]);
}

export const DELETE_INPUT_VALUES = perDialect((dialect) => dialect === 'sqlite'
  ? `DELETE FROM run_input_terms WHERE ${isOneOf(dialect, 'rowid')}`
  : `DELETE FROM run_input_values WHERE (path, value, run_seq) IN (SELECT path, value, seq FROM ${batchRows(dialect, [['path', 'text'], ['value', 'text'], ['seq', 'int']])})`);

/**
 * Deletes the searchable values of runs about to be deleted (retention). On SQLite a run's
 * terms are one row with its number. On PostgreSQL each run's rows are found by walking its
 * stored input as its creation did: each row is then a probe of the primary key, and no
 * second index is written with every run. Returns how many runs (SQLite) or rows
 * (PostgreSQL) went.
 */
export async function deleteInputValues(sql: Sql, runs: readonly { seq: number; input: unknown; triggerKind: string }[]): Promise<number> {
  if (sql.dialect === 'sqlite') return runs.length === 0 ? 0 : sql.run(DELETE_INPUT_VALUES.sqlite, [runs.map((run) => run.seq)]);
  const rows = runs.flatMap((run) => inputValues(searchedBody(run)).map((value) => [value.path, value.value, run.seq]));
  if (rows.length === 0) return 0;
  return sql.run(DELETE_INPUT_VALUES.postgresql, [rows]);
}

/** A run's searchable values as rows of the PostgreSQL webhook statement's batch (inbound-batch.ts). */
export const inputValuesParam = (values: readonly InputValue[]) => values.map((value) => [value.path, value.value]);
