/**
 * Operations over many runs (a recovery of a time window) and the runs each included.
 * Every statement takes a batch as one array parameter (batch.ts), so an operation of
 * 10,000 runs costs a few dozen statements, never one per run.
 */
import { batchRows, isOneOf, perDialect } from './batch.ts';
import type { Sql } from './db.ts';
import { CHECKPOINT_COLUMNS, OPERATION_COLUMNS, OPERATION_RUN_COLUMNS, RUN_COLUMNS, toCheckpoint, toJson, toOperation, toOperationRun, toRun } from './rows.ts';
import { updateRunsInIdOrder } from './runs.ts';
import type { CheckpointRow, OperationRow, OperationRunRow, OperationStatus, RunRow, RunStatus } from './types.ts';

/** Rows per statement when an operation's runs are written or read. */
const CHUNK = 1000;

export async function insertOperation(sql: Sql, operation: OperationRow): Promise<void> {
  await sql.run(
    `INSERT INTO operations (${OPERATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [operation.id, operation.kind, operation.name, toJson(operation.request), toJson(operation.preview), operation.status, operation.total,
      operation.done, operation.error, operation.createdBy, operation.createdAt, operation.finishedAt, operation.cancelledBy],
  );
}

const INSERT_OPERATION_RUNS = perDialect((dialect) =>
  `INSERT INTO operation_runs (operation_id, position, run_id, state)
   SELECT operation_id, position, run_id, 'pending' FROM ${batchRows(dialect, [['operation_id', 'text'], ['position', 'int'], ['run_id', 'text']])}`);

/** The runs an operation includes, in order, all pending. */
export async function insertOperationRuns(sql: Sql, operationId: string, runIds: readonly string[]): Promise<void> {
  for (let start = 0; start < runIds.length; start += CHUNK) {
    const rows = runIds.slice(start, start + CHUNK).map((runId, index) => [operationId, start + index, runId]);
    await sql.run(INSERT_OPERATION_RUNS[sql.dialect], [rows]);
  }
}

export async function getOperation(sql: Sql, id: string): Promise<OperationRow | undefined> {
  const row = await sql.get(`SELECT ${OPERATION_COLUMNS} FROM operations WHERE id = ?`, [id]);
  return row ? toOperation(row) : undefined;
}

/** Newest first. */
export async function listOperations(sql: Sql, limit: number): Promise<OperationRow[]> {
  const rows = await sql.all(`SELECT ${OPERATION_COLUMNS} FROM operations ORDER BY created_at DESC, id DESC LIMIT ?`, [limit]);
  return rows.map(toOperation);
}

export async function runningOperationIds(sql: Sql): Promise<string[]> {
  const rows = await sql.all<{ id: string }>(`SELECT id FROM operations WHERE status = 'running' ORDER BY created_at`);
  return rows.map((row) => row.id);
}

/** The next pending runs after `afterPosition`, in order. */
export async function pendingOperationRuns(sql: Sql, operationId: string, afterPosition: number, limit: number): Promise<OperationRunRow[]> {
  const rows = await sql.all(
    `SELECT ${OPERATION_RUN_COLUMNS} FROM operation_runs WHERE operation_id = ? AND position > ? AND state = 'pending' ORDER BY position LIMIT ?`,
    [operationId, afterPosition, limit],
  );
  return rows.map(toOperationRun);
}

/** A page of an operation's runs in order (for the report), from `afterPosition`. */
export async function operationRunsPage(sql: Sql, operationId: string, afterPosition: number, limit: number): Promise<OperationRunRow[]> {
  const rows = await sql.all(
    `SELECT ${OPERATION_RUN_COLUMNS} FROM operation_runs WHERE operation_id = ? AND position > ? ORDER BY position LIMIT ?`,
    [operationId, afterPosition, limit],
  );
  return rows.map(toOperationRun);
}

const SETTLE_OPERATION_RUNS_POSTGRES = 
  `UPDATE operation_runs SET state = batch.state, target_run_id = batch.target_run_id, attempt = batch.attempt, note = batch.note
   FROM ${batchRows('postgresql', [['position', 'int'], ['state', 'text'], ['target_run_id', 'text'], ['attempt', 'int'], ['note', 'text']])}
   WHERE operation_runs.operation_id = ? AND operation_runs.position = batch.position AND operation_runs.state = 'pending'`;

export interface SettledOperationRun {
  position: number;
  state: 'queued' | 'passed';
  targetRunId: string | null;
  attempt: number | null;
  note: string | null;
}

/**
 * Counts `count` more runs as handled, but only while the operation is still running:
 * false once it was cancelled, so the caller's batch stops before any run starts. On
 * PostgreSQL the row stays locked until the batch commits, so a Cancel waits for the
 * batch in hand and the next one sees it.
 */
export async function countOperationProgress(sql: Sql, operationId: string, count: number): Promise<boolean> {
  return (await sql.run(`UPDATE operations SET done = done + ? WHERE id = ? AND status = 'running'`, [count, operationId])) === 1;
}

/** Records what became of a batch of runs (each moves only from pending). */
export async function recordOperationRuns(sql: Sql, operationId: string, settled: readonly SettledOperationRun[]): Promise<void> {
  if (settled.length === 0) return;
  if (sql.dialect === 'sqlite') {
    // SQLite plans UPDATE … FROM with the table outside (every row of the operation per
    // batch); a statement per row inside the transaction costs microseconds instead.
    for (const row of settled) {
      await sql.run(
        `UPDATE operation_runs SET state = ?, target_run_id = ?, attempt = ?, note = ? WHERE operation_id = ? AND position = ? AND state = 'pending'`,
        [row.state, row.targetRunId, row.attempt, row.note, operationId, row.position],
      );
    }
    return;
  }
  await sql.run(SETTLE_OPERATION_RUNS_POSTGRES, [settled.map((row) => [row.position, row.state, row.targetRunId, row.attempt, row.note]), operationId]);
}

/**
 * Claims a batch of pending rows for this transaction; returns the positions it won. A
 * batch two servers both pick up (each resuming the operation) is won by one of them.
 */
export async function claimPendingOperationRuns(sql: Sql, operationId: string, positions: readonly number[]): Promise<Set<number>> {
  const rows = await sql.all<{ position: number }>(
    `SELECT position FROM operation_runs WHERE operation_id = ? AND ${isOneOf(sql.dialect, 'position')} AND state = 'pending'${sql.dialect === 'postgresql' ? ' FOR UPDATE' : ''}`,
    [operationId, [...positions]],
  );
  return new Set(rows.map((row) => Number(row.position)));
}

export async function finishOperation(sql: Sql, id: string, status: Exclude<OperationStatus, 'running'>, now: number, error: string | null = null, by: string | null = null): Promise<boolean> {
  const changed = await sql.run(
    `UPDATE operations SET status = ?, finished_at = ?, error = ?, cancelled_by = ? WHERE id = ? AND status = 'running'`,
    [status, now, error, by, id],
  );
  return changed === 1;
}

export interface RunSelection {
  flowId?: string;
  from: number;
  to: number;
  statuses: readonly RunStatus[];
  triggerKinds: readonly string[];
  /** Runs numbered above this (the previous page's last). */
  afterSeq: number;
  limit: number;
}

/** A page of live runs created in [from, to) with one of the statuses and trigger kinds, in number order. */
export async function selectRuns(sql: Sql, selection: RunSelection): Promise<RunRow[]> {
  const flow = selection.flowId ? ' AND flow_id = ?' : '';
  const rows = await sql.all(
    `SELECT ${RUN_COLUMNS} FROM runs
     WHERE created_at >= ? AND created_at < ? AND seq > ? AND test_scope IS NULL AND ${isOneOf(sql.dialect, 'status')} AND ${isOneOf(sql.dialect, 'trigger_kind')}${flow}
     ORDER BY seq LIMIT ?`,
    [selection.from, selection.to, selection.afterSeq, [...selection.statuses], [...selection.triggerKinds], ...(selection.flowId ? [selection.flowId] : []), selection.limit],
  );
  return rows.map(toRun);
}

/** Runs by id (any order). */
export async function runsByIds(sql: Sql, ids: readonly string[]): Promise<RunRow[]> {
  const out: RunRow[] = [];
  for (let start = 0; start < ids.length; start += CHUNK) {
    const rows = await sql.all(`SELECT ${RUN_COLUMNS} FROM runs WHERE ${isOneOf(sql.dialect, 'id')}`, [ids.slice(start, start + CHUNK)]);
    out.push(...rows.map(toRun));
  }
  return out;
}

export interface RunHead {
  seq: number;
  status: RunStatus;
  attempt: number;
  versionId: string;
}

/** Run numbers, statuses and versions by id, without the inputs. */
export async function runHeads(sql: Sql, ids: readonly string[]): Promise<Map<string, RunHead>> {
  const heads = new Map<string, RunHead>();
  for (let start = 0; start < ids.length; start += CHUNK) {
    const rows = await sql.all<{ id: string; seq: number; status: RunStatus; attempt: number; version_id: string }>(
      `SELECT id, seq, status, attempt, version_id FROM runs WHERE ${isOneOf(sql.dialect, 'id')}`, [ids.slice(start, start + CHUNK)]);
    for (const row of rows) heads.set(row.id, { seq: Number(row.seq), status: row.status, attempt: Number(row.attempt), versionId: row.version_id });
  }
  return heads;
}

/** Every checkpoint of these runs, grouped by run. */
export async function checkpointsOfRuns(sql: Sql, runIds: readonly string[]): Promise<Map<string, CheckpointRow[]>> {
  const byRun = new Map<string, CheckpointRow[]>();
  for (let start = 0; start < runIds.length; start += CHUNK) {
    const rows = await sql.all(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE ${isOneOf(sql.dialect, 'run_id')}`, [runIds.slice(start, start + CHUNK)]);
    for (const row of rows.map(toCheckpoint)) {
      const list = byRun.get(row.runId);
      if (list) list.push(row);
      else byRun.set(row.runId, [row]);
    }
  }
  return byRun;
}

/** Which steps of these runs ever began (a `step.started` event), grouped by run. */
export async function startedStepsOfRuns(sql: Sql, runIds: readonly string[]): Promise<Map<string, Set<string>>> {
  const byRun = new Map<string, Set<string>>();
  for (let start = 0; start < runIds.length; start += CHUNK) {
    const rows = await sql.all<{ run_id: string; node_id: string }>(
      `SELECT DISTINCT run_id, node_id FROM timeline_events WHERE ${isOneOf(sql.dialect, 'run_id')} AND type = 'step.started'`,
      [runIds.slice(start, start + CHUNK)],
    );
    for (const row of rows) {
      const set = byRun.get(row.run_id);
      if (set) set.add(row.node_id);
      else byRun.set(row.run_id, new Set([row.node_id]));
    }
  }
  return byRun;
}

export interface StepEventRow {
  runId: string;
  nodeId: string;
  type: string;
  attempt: number;
  data: unknown;
}

/** What the steps of these runs did, as their outcome events say (for a recovery report). */
export async function stepOutcomeEvents(sql: Sql, runIds: readonly string[]): Promise<StepEventRow[]> {
  const out: StepEventRow[] = [];
  for (let start = 0; start < runIds.length; start += CHUNK) {
    const rows = await sql.all<{ run_id: string; node_id: string; type: string; attempt: number; data: string | null }>(
      `SELECT run_id, node_id, type, attempt, data FROM timeline_events
       WHERE ${isOneOf(sql.dialect, 'run_id')} AND node_id IS NOT NULL
         AND type IN ('step.succeeded', 'step.duplicate', 'step.skipped', 'step.uncertain', 'step.resolved', 'step.failed')
       ORDER BY id`,
      [runIds.slice(start, start + CHUNK)],
    );
    for (const row of rows) out.push({ runId: row.run_id, nodeId: row.node_id, type: row.type, attempt: Number(row.attempt), data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data });
  }
  return out;
}

/**
 * Sends a batch of runs back to the queue as a new attempt each, as `transitionRun` does
 * for one (held instead while their flow is paused), when they are still in one of
 * `from`; returns the ids that moved. One statement for the whole batch.
 */
export async function requeueRuns(sql: Sql, ids: readonly string[], from: readonly RunStatus[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const requeue = updateRunsInIdOrder(
    sql.dialect,
    `status = CASE WHEN EXISTS (SELECT 1 FROM flows WHERE flows.id = runs.flow_id AND flows.paused_at IS NOT NULL) THEN 'held' ELSE 'queued' END,
       lease_owner = NULL, lease_until = NULL, wake_at = NULL, lease_fence = lease_fence + 1, attempt = attempt + 1, error = NULL, finished_at = NULL`,
    `${isOneOf(sql.dialect, 'id')} AND ${isOneOf(sql.dialect, 'status')}`,
    'id',
  );
  const rows = await sql.all<{ id: string }>(requeue.text, requeue.params([], [[...ids], [...from]]));
  return new Set(rows.map((row) => row.id));
}

const FORGET_POSTGRES = `DELETE FROM checkpoints USING ${batchRows('postgresql', [['run_id', 'text'], ['node_id', 'text']])}
  WHERE checkpoints.run_id = batch.run_id AND checkpoints.node_id = batch.node_id`;
// The runs' rows taken in id order first, as every write of several runs takes them (runs.ts, above HEARTBEAT).
const MOVE_POSTGRES = `WITH moves AS MATERIALIZED (
    SELECT batch.* FROM ${batchRows('postgresql', [['id', 'text'], ['version_id', 'text']])} JOIN runs ON runs.id = batch.id ORDER BY runs.id COLLATE "C" FOR UPDATE OF runs)
  UPDATE runs SET version_id = moves.version_id FROM moves WHERE runs.id = moves.id`;

/**
 * Forgets checkpoints and moves runs to versions, for a batch of reruns on another
 * version. PostgreSQL takes each list in one statement; SQLite plans UPDATE … FROM and
 * DELETE … IN (pairs) with the table outside, so there a statement per row (microseconds
 * inside the transaction) is the quick way.
 */
export async function moveRunsForRerun(sql: Sql, forget: readonly (readonly [runId: string, nodeId: string])[], moves: readonly (readonly [runId: string, versionId: string])[]): Promise<void> {
  if (sql.dialect === 'postgresql') {
    if (forget.length) await sql.run(FORGET_POSTGRES, [forget]);
    if (moves.length) await sql.run(MOVE_POSTGRES, [moves]);
    return;
  }
  for (const [runId, nodeId] of forget) await sql.run(`DELETE FROM checkpoints WHERE run_id = ? AND node_id = ?`, [runId, nodeId]);
  for (const [runId, versionId] of moves) await sql.run(`UPDATE runs SET version_id = ? WHERE id = ?`, [versionId, runId]);
}
