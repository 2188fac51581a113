/**
 * Lists of runs, newest first: by flow and status, by id, number or event id, and by what
 * a run did (migration 0012) — a value in its trigger input, a key one of its steps used,
 * the step it failed at. Each of those is answered from an index whatever the number of
 * runs (run-list.plan.test.ts checks the plans on 1,000,000 runs):
 *
 * - input value: on PostgreSQL the (path, value, run_seq) key of run_input_values, on
 *   SQLite the pair's full-text term (input-values.ts), walked newest first, each match
 *   joined to its run by number; the list stops at `limit`;
 * - key: checkpoints and claims by key (any scope), joined to runs by id;
 * - failed step: the partial (failed_node, seq) index of failed runs.
 */
import type { Dialect, Sql } from './db.ts';
import { INPUT_TERM_MATCH } from './input-values.ts';
import { RUN_COLUMNS, toRun } from './rows.ts';
import type { RunRow, RunStatus } from './types.ts';

export interface RunFilter {
  flowId?: string;
  status?: RunStatus;
  /** A run id, a run number (`12` or `#12`), or a webhook event id. */
  search?: string;
  /** Runs one of whose steps used this key, in any scope (acted on it, or found it done). */
  key?: string;
  /** Runs whose trigger input holds `value` at `path` (store/input-values.ts). */
  input?: { path: string; value: string };
  /** Failed runs that failed at one of these steps (node ids; listed one by one, see listRuns). */
  failedNodes?: readonly string[];
  /** Runs with a number below this (for the next page). */
  beforeSeq?: number;
  /** Test runs are left out of history unless asked for (default: live). */
  mode?: 'live' | 'test' | 'all';
  limit: number;
}

/** The largest run number a column can hold (PostgreSQL `integer`); larger ones match nothing. */
export const MAX_RUN_NUMBER = 2_147_483_647;

/** `12` or `#12` as a run number, or null when the text is not one any run can have. */
function runNumber(search: string): number | null {
  const digits = /^#?0*(\d{1,10})$/.exec(search)?.[1];
  if (digits === undefined) return null;
  const number = Number(digits);
  return number <= MAX_RUN_NUMBER ? number : null;
}

/** One step a run failed at, as one statement asks for it. */
export type RunQuery = Omit<RunFilter, 'failedNodes'> & { failedNode?: string };

/** The statement that lists runs for `filter`, exported so tests can read its plan. */
export function runListQuery(dialect: Dialect, filter: RunQuery): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  // The search leads: its rows come first and each is joined to its run. CROSS JOIN keeps
  // that order on SQLite, whose planner would otherwise walk a flow's runs one by one
  // when the flow filter is set; PostgreSQL plans it as any join (and leads the same way).
  let from = 'runs';
  let seq = 'seq';
  const keyed = 'SELECT run_id FROM checkpoints WHERE key = ? UNION SELECT owner_run_id FROM claims WHERE key = ?';
  if (filter.input) {
    // From the value's index, in its order: a value shared by a million runs still yields
    // the newest page without sorting them all.
    if (dialect === 'sqlite') {
      from = 'run_input_terms CROSS JOIN runs';
      seq = 'run_input_terms.rowid';
      where.push(`run_input_terms MATCH ${INPUT_TERM_MATCH} AND runs.seq = run_input_terms.rowid`);
      params.push(filter.input.path, filter.input.value);
    } else {
      from = 'run_input_values CROSS JOIN runs';
      seq = 'run_input_values.run_seq';
      where.push('run_input_values.path = ? AND run_input_values.value = ? AND runs.seq = run_input_values.run_seq');
      params.push(filter.input.path, filter.input.value);
    }
    if (filter.key !== undefined) {
      where.push(`runs.id IN (${keyed})`);
      params.push(filter.key, filter.key);
    }
  } else if (filter.key !== undefined) {
    from = `(${keyed}) AS keyed CROSS JOIN runs`;
    where.push('runs.id = keyed.run_id');
    params.push(filter.key, filter.key);
  }
  if (filter.failedNode !== undefined) { where.push('failed_node = ?'); params.push(filter.failedNode); }
  if (filter.flowId) { where.push('flow_id = ?'); params.push(filter.flowId); }
  if (filter.status) { where.push('status = ?'); params.push(filter.status); }
  const mode = filter.mode ?? 'live';
  if (mode !== 'all') where.push(mode === 'live' ? 'test_scope IS NULL' : 'test_scope IS NOT NULL');
  // Every run number fits the column, so a cursor beyond it leaves every run in.
  if (filter.beforeSeq !== undefined && filter.beforeSeq <= MAX_RUN_NUMBER) { where.push(`${seq} < ?`); params.push(filter.beforeSeq); }
  const search = filter.search?.trim();
  if (search) {
    const number = runNumber(search);
    where.push(number === null ? '(id = ? OR event_id = ?)' : '(id = ? OR event_id = ? OR runs.seq = ?)');
    params.push(search, search, ...(number === null ? [] : [number]));
  }
  params.push(filter.limit);
  const columns = RUN_COLUMNS.split(', ').map((column) => `runs.${column}`).join(', ');
  return {
    sql: `SELECT ${columns} FROM ${from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${seq} DESC LIMIT ?`,
    params,
  };
}

/** Steps one search may name at once (a name shared by steps of several flows). */
export const MAX_FAILED_NODES = 50;

export async function listRuns(sql: Sql, filter: RunFilter): Promise<RunRow[]> {
  const { failedNodes, ...rest } = filter;
  if (failedNodes === undefined) return page(sql, rest);
  // A step name may stand for several ids. Each id is its own probe of the partial index
  // and the pages are merged: an `IN` list lets PostgreSQL's estimate drift towards
  // walking every run backwards by number instead.
  const pages = await Promise.all(failedNodes.slice(0, MAX_FAILED_NODES).map((failedNode) => page(sql, { ...rest, failedNode })));
  return pages.flat().sort((a, b) => b.seq - a.seq).slice(0, filter.limit);
}

async function page(sql: Sql, query: RunQuery): Promise<RunRow[]> {
  const { sql: text, params } = runListQuery(sql.dialect, query);
  const rows = await sql.all(text, params);
  return rows.map(toRun);
}
