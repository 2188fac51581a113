/**
 * Finding a run by what it did is answered from an index on 1,000,000 runs: the plan of
 * each search names the index built for it and scans none of the big tables, and the
 * answers are the right runs. The runs and their rows are written by one set-based
 * statement per table (no loop), so the fill takes seconds.
 *
 * Run i (1…1,000,000) of flow `flow_<i % 10>` has input {"order":{"id":i},"type":"order.paid"}
 * (so `type = order.paid` matches every run) and one step `invoice` with key `<i, 7 digits>:invoice`:
 * a checkpoint records it, except on every 100th run, which failed at step `step_<i/100 % 7>`
 * and left only a failed claim.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import type { Db } from './db.ts';
import { DELETE_INPUT_VALUES, deleteInputValues } from './input-values.ts';
import { listRuns, runListQuery, type RunFilter, type RunQuery } from './run-list.ts';

const RUNS = 1_000_000;
/** The tables that grow with the runs; SQLite keeps the searchable values in run_input_terms (migration 0021). */
const BIG_TABLES = ['runs', 'run_input_values', 'run_input_terms', 'checkpoints', 'claims'];
const POSTGRES_BIG_TABLES = BIG_TABLES.filter((table) => table !== 'run_input_terms');

/** `from` yields i = 1…RUNS: a recursive CTE on SQLite, generate_series on PostgreSQL. */
function fillStatements(db: Db): string[] {
  const sqlite = db.dialect === 'sqlite';
  const numbers = sqlite
    ? `(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${RUNS}) SELECT i FROM n) AS n`
    : `generate_series(1, ${RUNS}) AS n(i)`;
  const failed = 'i % 100 = 0';
  // Ids and keys padded to seven digits sort as they are written, so each index is
  // appended to rather than split all over: the fill then takes a few seconds.
  const padded = sqlite ? "printf('%07d', i)" : "lpad(i::text, 7, '0')";
  return [
    `INSERT INTO runs (id, seq, flow_id, version_id, status, input, trigger_kind, attempt, lease_fence, created_at, created_by, failed_node)
     SELECT 'run_' || ${padded}, i, 'flow_' || (i % 10), 'v1', CASE WHEN ${failed} THEN 'failed' ELSE 'succeeded' END,
       '{"order":{"id":' || i || '},"type":"order.paid"}', 'manual', 1, 0, i, 'system',
       CASE WHEN ${failed} THEN 'step_' || ((i / 100) % 7) END
     FROM ${numbers}`,
    // The searchable values: on SQLite one full-text row per run, its terms as
    // input-values.ts writes them; on PostgreSQL rows of the key, written in path order as
    // an index build would ('order.id' rows, then 'type' rows).
    ...(sqlite
      ? [`INSERT INTO run_input_terms (rowid, terms) SELECT i, lower(hex('order.id' || char(0) || i)) || ' ' || lower(hex('type' || char(0) || 'order.paid')) FROM ${numbers}`]
      : [
        `INSERT INTO run_input_values (path, value, run_seq) SELECT 'order.id', i::text, i FROM ${numbers}`,
        `INSERT INTO run_input_values (path, value, run_seq) SELECT 'type', 'order.paid', i FROM ${numbers}`,
      ]),
    `INSERT INTO checkpoints (run_id, node_id, status, key_scope, key, attempt, created_at)
     SELECT 'run_' || ${padded}, 'invoice', 'succeeded', 'billing', ${padded} || ':invoice', 1, i FROM ${numbers} WHERE NOT (${failed})`,
    `INSERT INTO claims (scope, key, status, fingerprint, request, owner_run_id, owner_node_id, lease_until, expires_at, created_at, updated_at)
     SELECT 'billing', ${padded} || ':invoice', CASE WHEN ${failed} THEN 'failed' ELSE 'succeeded' END, 'f', '{}', 'run_' || ${padded}, 'invoice', 0, 9000000000000, i, i
     FROM ${numbers}`,
  ];
}

async function plan(db: Db, filter: RunQuery): Promise<string[]> {
  const query = runListQuery(db.dialect, filter);
  if (db.dialect === 'sqlite') {
    return (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query.sql}`, query.params)).map((row) => row.detail);
  }
  return (await db.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.sql}`, query.params)).map((row) => row['QUERY PLAN']);
}

/**
 * No big table is read whole: on SQLite every step on one is a SEARCH, and the full-text
 * table is read for a term (FTS5 names a MATCH constraint `M` in its index); on PostgreSQL
 * none is a Seq Scan.
 */
function expectNoScan(db: Db, lines: string[]): void {
  const text = lines.join('\n');
  for (const table of BIG_TABLES) {
    if (db.dialect === 'sqlite') {
      for (const line of lines.filter((candidate) => new RegExp(`\\b${table}\\b`).test(candidate))) {
        expect(line, text).toMatch(table === 'run_input_terms' ? /^SCAN run_input_terms VIRTUAL TABLE INDEX \d+:M/ : /^SEARCH /);
      }
    } else {
      expect(text).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
    }
  }
}

/** The first big table the plan reads is read through `index`: the search leads, the flow's runs do not. */
function expectLedBy(lines: string[], index: string): void {
  const reads = lines.filter((line) => /^(SEARCH|SCAN) |\bScan\b/.test(line.trim()));
  const first = reads.find((line) => BIG_TABLES.some((table) => new RegExp(`\\b${table}\\b`).test(line)));
  expect(first, lines.join('\n')).toContain(index);
}

/** The index names each database gives the indexes of migration 0012. */
const INPUT_KEY = { sqlite: 'run_input_terms VIRTUAL TABLE INDEX', postgresql: 'run_input_values_pkey' } as const;

const seqs = (runs: { seq: number }[]) => runs.map((run) => run.seq);

for (const kind of testDatabases()) {
  describe(`finding runs among 1,000,000 on ${kind.name}`, () => {
    const database = useMigratedDatabase(kind);

    it('answers every search from its index, with the right runs', async () => {
      const db = database();
      // A test database need not survive a crash: without the write-ahead log PostgreSQL
      // fills the tables in half the time, and plans are made the same way.
      if (db.dialect === 'postgresql') await db.exec(POSTGRES_BIG_TABLES.map((table) => `ALTER TABLE ${table} SET UNLOGGED;`).join('\n'));
      // PostgreSQL fills the tables at once, each on a connection of its own (no table
      // refers to another); SQLite has one connection, and takes them in turn.
      if (db.dialect === 'postgresql') await Promise.all(fillStatements(db).map((statement) => db.run(statement)));
      else await db.transaction(async (tx) => {
        for (const statement of fillStatements(db)) await tx.run(statement);
      });
      if (db.dialect === 'postgresql') await db.exec(`ANALYZE ${POSTGRES_BIG_TABLES.join(', ')}`);

      // A value one run has.
      const byValue: RunFilter = { input: { path: 'order.id', value: '4417' }, limit: 51 };
      const valuePlan = await plan(db, byValue);
      expectNoScan(db, valuePlan);
      expectLedBy(valuePlan, INPUT_KEY[db.dialect]);
      expect(seqs(await listRuns(db, byValue))).toEqual([4417]);

      // A value every run has: the newest page comes straight from the index's order.
      const shared: RunFilter = { input: { path: 'type', value: 'order.paid' }, limit: 3 };
      const sharedPlan = await plan(db, shared);
      expectNoScan(db, sharedPlan);
      expectLedBy(sharedPlan, INPUT_KEY[db.dialect]);
      expect(sharedPlan.join('\n')).not.toMatch(/TEMP B-TREE|Sort/);
      expect(seqs(await listRuns(db, shared))).toEqual([RUNS, RUNS - 1, RUNS - 2]);
      expect(seqs(await listRuns(db, { ...shared, beforeSeq: 500_000 }))).toEqual([499_999, 499_998, 499_997]);

      // A key, whatever its scope: from a checkpoint, and from a failed step's claim alone.
      const byKey: RunFilter = { key: '0004417:invoice', limit: 51 };
      const keyPlan = await plan(db, byKey);
      expectNoScan(db, keyPlan);
      expectLedBy(keyPlan, 'checkpoints_key_idx');
      expect(keyPlan.join('\n')).toContain('claims_key_idx');
      expect(seqs(await listRuns(db, byKey))).toEqual([4417]);
      expect(seqs(await listRuns(db, { key: '0000500:invoice', limit: 51 }))).toEqual([500]);
      expect(await listRuns(db, { key: '0004417:receipt', limit: 51 })).toEqual([]);

      // The step a run failed at: one step, or the ids a step's name stands for.
      const byStep: RunFilter = { failedNodes: ['step_3'], limit: 3 };
      const stepPlan = await plan(db, { failedNode: 'step_3', limit: 3 });
      expectNoScan(db, stepPlan);
      expectLedBy(stepPlan, 'runs_failed_node_idx');
      // i % 100 = 0 and (i / 100) % 7 = 3, newest first: 9,999 % 7 = 3, 9,992 % 7 = 3, …
      expect(seqs(await listRuns(db, byStep))).toEqual([999_900, 999_200, 998_500]);
      // With the flow and status filters too (every failed run is of flow_0).
      expect(seqs(await listRuns(db, { ...byStep, flowId: 'flow_0', status: 'failed' }))).toEqual([999_900, 999_200, 998_500]);
      const bySteps: RunFilter = { failedNodes: ['step_3', 'step_4'], limit: 2 };
      expect(seqs(await listRuns(db, bySteps))).toEqual([1_000_000, 999_900]);

      // A key or a value within one flow: still its own index, not the flow's runs one by one.
      const inFlow: [RunFilter, string][] = [
        [{ key: '0004417:invoice', flowId: 'flow_7', limit: 51 }, 'checkpoints_key_idx'],
        [{ input: { path: 'order.id', value: '4417' }, flowId: 'flow_7', limit: 51 }, INPUT_KEY[db.dialect]],
        [{ failedNodes: ['step_3'], flowId: 'flow_0', limit: 3 }, 'runs_failed_node_idx'],
      ];
      for (const [filter, index] of inFlow) {
        const lines = await plan(db, { ...filter, failedNode: filter.failedNodes?.[0] });
        expectNoScan(db, lines);
        expectLedBy(lines, index);
      }
      expect(seqs(await listRuns(db, inFlow[0]![0]))).toEqual([4417]);
      expect(seqs(await listRuns(db, inFlow[1]![0]))).toEqual([4417]);

      // Together, and with the page's other filters: every condition holds.
      const together: RunFilter = { input: { path: 'order.id', value: '4417' }, key: '0004417:invoice', flowId: 'flow_7', status: 'succeeded', limit: 51 };
      expectNoScan(db, await plan(db, together));
      expect(seqs(await listRuns(db, together))).toEqual([4417]);
      expect(await listRuns(db, { ...together, key: '0004418:invoice' })).toEqual([]);
      expect(await listRuns(db, { ...byValue, flowId: 'flow_1' })).toEqual([]);

      // Deleting a run's values: on SQLite its full-text row by number; on PostgreSQL its
      // rows found again from its input, probes of the primary key.
      const run = { seq: 4417, input: { order: { id: 4417 }, type: 'order.paid' }, triggerKind: 'manual' };
      const deletePlan = db.dialect === 'sqlite'
        ? (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${DELETE_INPUT_VALUES.sqlite}`, [[4417]])).map((row) => row.detail)
        : (await db.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${DELETE_INPUT_VALUES.postgresql}`, [[['order.id', '4417', 4417]]])).map((row) => row['QUERY PLAN']);
      if (db.dialect === 'sqlite') expect(deletePlan.join('\n')).toMatch(/^SCAN run_input_terms VIRTUAL TABLE INDEX \d+:=/m);
      else expectNoScan(db, deletePlan);
      if (db.dialect === 'postgresql') expect(deletePlan.join('\n')).toContain(INPUT_KEY.postgresql);
      expect(await deleteInputValues(db, [run])).toBe(db.dialect === 'sqlite' ? 1 : 2);
      expect(await listRuns(db, byValue)).toEqual([]);
      expect(seqs(await listRuns(db, { ...shared, beforeSeq: 4418 }))).toEqual([4416, 4415, 4414]);
    }, 120_000);
  });
}
