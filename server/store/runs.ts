/**
 * Run rows. The database owns the lease: one transaction picks the runs, bumps their fence
 * and hands them to one worker (on PostgreSQL one statement, skipping rows another worker
 * is locking); every later write by that worker names the fence it got.
 */
import { batchRows, isOneOf, perDialect } from './batch.ts';
import type { Db, Dialect, Row, Sql } from './db.ts';
import { RUN_COLUMNS, toJson, toRun } from './rows.ts';
import { inputValues, insertInputValues, searchedBody } from './input-values.ts';
import { insertEvents } from './timeline.ts';
import type { RunRow, RunStatus, TestTargets, TimelineEvent } from './types.ts';

export interface NewRun {
  id: string;
  flowId: string;
  versionId: string;
  input: unknown;
  triggerKind: string;
  triggerNode: string | null;
  eventId: string | null;
  replayOf: string | null;
  createdAt: number;
  createdBy: string;
  /** Test runs only (absent: a live run). */
  test?: { scope: string; targets: TestTargets };
  /** A child run: the parent run and the Run flow step that started it. */
  parent?: { runId: string; nodeId: string };
  /**
   * Written already leased to this worker (fence 1, status running), so it starts without
   * a lease of its own (worker.ts, `startNow`); a paused flow's run is held all the same.
   */
  leaseTo?: RunLeaseTo;
}

export interface RunLeaseTo {
  workerId: string;
  leaseUntil: number;
}

/**
 * A new run's status and lease columns — status, lease_owner, lease_until, lease_fence,
 * started_at — decided inside its INSERT from the columns named here: `held` while its
 * flow is paused (so the pause costs no extra round trip on the webhook path), running and
 * leased (fence 1) when a lease owner is given (`NewRun.leaseTo`), `queued` otherwise.
 */
export const newRunState = ({ paused, owner, until, now }: { paused: string; owner: string; until: string; now: string }) =>
  `CASE WHEN ${paused} THEN 'held' WHEN ${owner} IS NOT NULL THEN 'running' ELSE 'queued' END,
   CASE WHEN ${paused} THEN NULL ELSE ${owner} END, CASE WHEN ${paused} THEN NULL ELSE ${until} END,
   CASE WHEN ${paused} OR ${owner} IS NULL THEN 0 ELSE 1 END, CASE WHEN ${paused} OR ${owner} IS NULL THEN NULL ELSE ${now} END`;

/** The columns newRunState decides, in its order. */
export const NEW_RUN_STATE_COLUMNS = 'status, lease_owner, lease_until, lease_fence, started_at';

/**
 * Inserts a queued (or, in a paused flow, held) run with its `run.queued` event and its
 * searchable input values (input-values.ts); returns its number.
 */
export async function insertRun(sql: Sql, run: NewRun, extraEvents: TimelineEvent[] = []): Promise<number> {
  return (await insertRunRow(sql, run, extraEvents)).seq;
}

/**
 * A new run's number. SQLite has no sequence that outlives deleted rows, so a run is
 * numbered past the highest number kept and the highest retention has deleted (migration
 * 0020): a number is never given twice, even when retention took the newest runs. The
 * write lock makes each commit see the numbers before it.
 */
const nextSeq = (dialect: Dialect) => (dialect === 'sqlite'
  ? '(SELECT MAX(COALESCE((SELECT MAX(seq) FROM runs), 0), COALESCE((SELECT highest FROM retired_run_numbers WHERE id = 1), 0)) + 1)'
  : "nextval('runs_seq_seq')");

// Written out once, as every statement on a hot path is (db.ts, `prepare`).
const INSERT_RUN_ROW = perDialect((dialect) => {
  const state = newRunState({ paused: 'new_run.paused', owner: 'new_run.lease_owner', until: 'new_run.lease_until', now: 'new_run.created_at' });
  return `INSERT INTO runs (id, seq, flow_id, version_id, ${NEW_RUN_STATE_COLUMNS}, input, trigger_kind, trigger_node, event_id, replay_of, attempt, created_at, created_by, test_scope, test_targets, parent_run_id, parent_node_id)
     SELECT ?, ${nextSeq(dialect)}, ?, ?, ${state}, ?, ?, ?, ?, ?, 1, new_run.created_at, ?, ?, ?, ?, ?
     FROM (SELECT EXISTS (SELECT 1 FROM flows WHERE id = ? AND paused_at IS NOT NULL) AS paused,
       CAST(? AS TEXT) AS lease_owner, CAST(? AS BIGINT) AS lease_until, CAST(? AS BIGINT) AS created_at) AS new_run
     RETURNING seq, status`;
});

/** insertRun, also saying the status the run was written with (running when leased on insert, held in a paused flow). */
export async function insertRunRow(sql: Sql, run: NewRun, extraEvents: TimelineEvent[] = []): Promise<{ seq: number; status: RunStatus }> {
  const row = await sql.get<{ seq: number; status: RunStatus }>(
    INSERT_RUN_ROW[sql.dialect],
    [
      run.id, run.flowId, run.versionId, toJson(run.input), run.triggerKind, run.triggerNode, run.eventId, run.replayOf, run.createdBy,
      run.test?.scope ?? null, run.test?.targets ?? null, run.parent?.runId ?? null, run.parent?.nodeId ?? null,
      run.flowId, run.leaseTo?.workerId ?? null, run.leaseTo?.leaseUntil ?? null, run.createdAt,
    ],
  );
  const seq = Number(row!.seq);
  await insertInputValues(sql, seq, inputValues(searchedBody(run)));
  await insertEvents(sql, [...extraEvents, queuedEvent(run)]);
  return { seq, status: row!.status };
}

/**
 * The row a run written leased (`leaseTo`, status running) holds, built from what was
 * written rather than read back: the worker that takes it needs no statement at all. Its
 * flow was not paused when it was written, or it would have been held.
 */
export function runLeasedOnInsert(run: NewRun, leaseTo: RunLeaseTo, seq: number): LeasedRun {
  return {
    id: run.id, seq, flowId: run.flowId, versionId: run.versionId, status: 'running', input: run.input, triggerKind: run.triggerKind,
    triggerNode: run.triggerNode, eventId: run.eventId, replayOf: run.replayOf, attempt: 1, leaseOwner: leaseTo.workerId,
    leaseUntil: leaseTo.leaseUntil, leaseFence: 1, wakeAt: null, error: null, createdAt: run.createdAt, startedAt: run.createdAt,
    finishedAt: null, createdBy: run.createdBy, testScope: run.test?.scope ?? null, testTargets: run.test?.targets ?? null, failedNode: null,
    parentRunId: run.parent?.runId ?? null, parentNodeId: run.parent?.nodeId ?? null, flowPausedAt: null, flowPausedBy: null,
  };
}

/** The `run.queued` event every new run's timeline starts with (after what started it). */
export function queuedEvent(run: NewRun): TimelineEvent {
  return { runId: run.id, type: 'run.queued', nodeId: null, attempt: 1, data: { trigger: run.triggerKind, eventId: run.eventId, replayOf: run.replayOf, ...(run.test ? { test: run.test } : {}), ...(run.parent ? { parent: run.parent } : {}) }, createdAt: run.createdAt };
}

export interface LeaseRequest {
  workerId: string;
  limit: number;
  leaseMs: number;
  now: number;
}

/**
 * A leased run, with its flow's pause as the lease found it (read in the same statement),
 * so the worker's check before the first step needs no statement of its own.
 */
export interface LeasedRun extends RunRow {
  flowPausedAt: number | null;
  flowPausedBy: string | null;
}

/**
 * Leases up to `limit` runs. Queued runs come first, in order, through the (status, seq)
 * index; runs whose delay is due or whose worker died (lease lapsed) are leased only when
 * the queue leaves room.
 */
export async function leaseRuns(db: Db, request: LeaseRequest): Promise<LeasedRun[]> {
  return (await leaseRunsNotingTakeOvers(db, request)).runs;
}

const QUEUED = `status = 'queued' ORDER BY seq`;
const DUE = `status = 'waiting' AND wake_at <= ? ORDER BY wake_at`;
const LAPSED = `status = 'running' AND lease_until < ? ORDER BY lease_until`;

// On SQLite an UPDATE takes the database's one write lock even when it matches nothing,
// so an idle worker polling every few milliseconds would queue its empty writes behind
// (and ahead of) everyone else's. One read first says which of the three kinds of run
// there are: nothing to lease costs no write at all, and a busy queue one read per lease.
const LOOK_FOR_RUNS = `SELECT EXISTS (SELECT 1 FROM runs WHERE ${QUEUED} LIMIT 1) AS queued,
  EXISTS (SELECT 1 FROM runs WHERE ${DUE} LIMIT 1) AS due,
  EXISTS (SELECT 1 FROM runs WHERE ${LAPSED} LIMIT 1) AS lapsed`;

/** leaseRuns, also saying how many of the runs were taken over from a worker whose lease lapsed. */
export async function leaseRunsNotingTakeOvers(db: Db, request: LeaseRequest): Promise<{ runs: LeasedRun[]; takenOver: number }> {
  if (db.dialect === 'postgresql') return leaseAllKinds(db, request);
  const found = await db.get<{ queued: number; due: number; lapsed: number }>(LOOK_FOR_RUNS, [request.now, request.now]);
  const queued = found?.queued ? await leaseWhere(db, request, PICK_QUEUED) : [];
  if (queued.length >= request.limit) return { runs: queued, takenOver: 0 };
  const rest = { ...request, limit: request.limit - queued.length };
  const due = found?.due ? await leaseWhere(db, rest, PICK_DUE, [request.now]) : [];
  if (queued.length + due.length >= request.limit) return { runs: [...queued, ...due], takenOver: 0 };
  const lapsed = found?.lapsed ? await leaseWhere(db, { ...rest, limit: rest.limit - due.length }, PICK_LAPSED, [request.now]) : [];
  return { runs: [...queued, ...due, ...lapsed], takenOver: lapsed.length };
}

const LEASE_SET = `UPDATE runs SET status = 'running', lease_owner = ?, lease_until = ?, lease_fence = lease_fence + 1,
       wake_at = NULL, started_at = COALESCE(started_at, ?)`;
const FLOW_PAUSE_COLUMNS = `(SELECT paused_at FROM flows WHERE flows.id = runs.flow_id) AS flow_paused_at,
       (SELECT paused_by FROM flows WHERE flows.id = runs.flow_id) AS flow_paused_by`;

const toLeasedRun = (row: Row): LeasedRun => ({ ...toRun(row), flowPausedAt: row.flow_paused_at == null ? null : Number(row.flow_paused_at), flowPausedBy: (row.flow_paused_by as string | null) ?? null });

/*
 * PostgreSQL: the three kinds in one statement, one round trip where a short queue cost
 * three. A WITH query is read only as far as its reader asks, and the outer LIMIT reads
 * the kinds in order and stops once it has enough: a later kind is looked for (and its
 * rows locked) only when the queue leaves room, as the three statements did. Each kind
 * skips rows another worker is locking. (FOR UPDATE may not stand in a UNION itself.)
 */
const LEASE_ALL_KINDS = `WITH queued AS (SELECT id FROM runs WHERE ${QUEUED} LIMIT ? FOR UPDATE SKIP LOCKED),
  due AS (SELECT id FROM runs WHERE ${DUE} LIMIT ? FOR UPDATE SKIP LOCKED),
  lapsed AS (SELECT id FROM runs WHERE ${LAPSED} LIMIT ? FOR UPDATE SKIP LOCKED),
  picked AS (
    SELECT id AS picked_id, 0 AS lease_kind FROM queued
    UNION ALL SELECT id, 1 FROM due
    UNION ALL SELECT id, 2 FROM lapsed
    LIMIT ?)
  ${LEASE_SET} FROM picked WHERE runs.id = picked.picked_id
  RETURNING ${RUN_COLUMNS}, ${FLOW_PAUSE_COLUMNS}, picked.lease_kind`;

async function leaseAllKinds(db: Db, request: LeaseRequest): Promise<{ runs: LeasedRun[]; takenOver: number }> {
  const { limit, now } = request;
  const rows = await db.all(LEASE_ALL_KINDS, [limit, now, limit, now, limit, limit, request.workerId, now + request.leaseMs, now]);
  const runs = rows
    .map((row) => ({ kind: Number(row.lease_kind), run: toLeasedRun(row) }))
    .sort((a, b) => a.kind - b.kind || a.run.seq - b.run.seq);
  return { runs: runs.map((each) => each.run), takenOver: runs.filter((each) => each.kind === 2).length };
}

// SQLite's statements of a lease (leaseInSteps), written out once (db.ts, `prepare`).
const pickWhere = (where: string) => `SELECT id FROM runs WHERE ${where} LIMIT ?`;
const PICK_QUEUED = pickWhere(QUEUED);
const PICK_DUE = pickWhere(DUE);
const PICK_LAPSED = pickWhere(LAPSED);
const LEASE_PICKED = `${LEASE_SET} WHERE ${isOneOf('sqlite', 'id')}`;
const READ_BACK_LEASED = `SELECT ${RUN_COLUMNS}, ${FLOW_PAUSE_COLUMNS} FROM runs WHERE ${isOneOf('sqlite', 'id')}`;

/** SQLite: one kind of leasable run (`pick`, one of the PICK_ texts), up to the request's limit. */
async function leaseWhere(db: Db, request: LeaseRequest, pick: string, whereParams: unknown[] = []): Promise<LeasedRun[]> {
  const leaseParams = [request.workerId, request.now + request.leaseMs, request.now];
  const rows = await db.durably((sql) => leaseInSteps(sql, leaseParams, pick, [...whereParams, request.limit]));
  return rows.map(toLeasedRun).sort((a, b) => a.seq - b.seq);
}

/*
 * SQLite: pick, update, read back, in the one transaction that holds the write lock, so
 * nothing can come between them. The same UPDATE with a RETURNING list of every column
 * took about three times as long (measured on the webhook benchmark's runs: 500 µs against
 * 170 µs for a lease of ten), and the lease was the costliest statement of a run.
 */
async function leaseInSteps(sql: Sql, leaseParams: unknown[], pick: string, pickParams: unknown[]): Promise<Row[]> {
  const picked = await sql.all<{ id: string }>(pick, pickParams);
  if (picked.length === 0) return [];
  const ids = picked.map((row) => row.id);
  await sql.run(LEASE_PICKED, [...leaseParams, ids]);
  return sql.all(READ_BACK_LEASED, [ids]);
}

/*
 * On PostgreSQL every statement that changes several runs takes their rows in id order
 * (a materialized `ORDER BY id COLLATE "C" FOR UPDATE` first: byte order, as JavaScript
 * sorts ids), and so does a run parking on its children (child-runs.ts, `holdChildren`):
 * two writers that need the same rows then queue for the first of them instead of each
 * holding one the other waits for. Taken in whatever order the join gave, a worker's
 * heartbeat holding a parent's row while it waited for the child's, and the parent
 * parking (the child's row taken, its own next) deadlocked, and PostgreSQL failed one of
 * them. SQLite has one writer at a time.
 */
/** An UPDATE of every run that matches `where`, in id order on PostgreSQL (above). */
export interface RunsUpdate {
  text: string;
  /** The statement's parameters: `set`'s and `where`'s, each in the order written. */
  params(setParams: readonly unknown[], whereParams: readonly unknown[]): unknown[];
}

export function updateRunsInIdOrder(dialect: Dialect, set: string, where: string, returning?: string): RunsUpdate {
  if (dialect === 'sqlite') {
    return { text: `UPDATE runs SET ${set} WHERE ${where}${returning ? ` RETURNING ${returning}` : ''}`, params: (setParams, whereParams) => [...setParams, ...whereParams] };
  }
  const qualified = returning ? ` RETURNING ${returning.split(',').map((column) => `runs.${column.trim()}`).join(', ')}` : '';
  return {
    text: `WITH locked AS MATERIALIZED (SELECT id FROM runs WHERE ${where} ORDER BY id COLLATE "C" FOR UPDATE)
      UPDATE runs SET ${set} FROM locked WHERE runs.id = locked.id${qualified}`,
    params: (setParams, whereParams) => [...whereParams, ...setParams],
  };
}

const HELD_BATCH = (dialect: Dialect) => `status = 'running'
     AND (id, lease_fence) IN (SELECT id, fence FROM ${batchRows(dialect, [['id', 'text'], ['fence', 'int']])})`;
const HEARTBEAT = perDialect((dialect) => updateRunsInIdOrder(dialect, 'lease_until = ?', HELD_BATCH(dialect), 'id'));

/**
 * Extends the leases a worker still holds; returns the ids it no longer holds. One
 * statement, so a worker frozen half-way (a pause, a SIGSTOP) never sits on row locks.
 */
export async function heartbeatRuns(db: Db, runs: { id: string; fence: number }[], until: number): Promise<string[]> {
  if (runs.length === 0) return [];
  const held = await db.durably((sql) => {
    const heartbeat = HEARTBEAT[sql.dialect];
    return sql.all<{ id: string }>(heartbeat.text, heartbeat.params([until], [runs.map((run) => [run.id, run.fence])]));
  });
  const kept = new Set(held.map((row) => row.id));
  return runs.filter((run) => !kept.has(run.id)).map((run) => run.id);
}

/**
 * Extends one run's lease when this worker still holds it (its fence is current); false
 * when it does not. Part of a journal's transaction, which then writes nothing.
 */
/** Extends a held run's lease; parameters (until, run id, fence). */
export const RENEW_RUN_LEASE = `UPDATE runs SET lease_until = ? WHERE id = ? AND lease_fence = ? AND status = 'running'`;

export async function renewRunLease(sql: Sql, run: { id: string; leaseFence: number }, until: number): Promise<boolean> {
  const changed = await sql.run(RENEW_RUN_LEASE, [until, run.id, run.leaseFence]);
  return changed === 1;
}

export interface LeasedRunEnding {
  status: Extract<RunStatus, 'succeeded' | 'failed' | 'needs_review' | 'waiting' | 'held'>;
  error: string | null;
  /** When a waiting run becomes leasable again. */
  wakeAt: number | null;
  /** When the run finished (null for waiting and held, which are not ends). */
  finishedAt: number | null;
  /** The step a failed run failed at, when one did (runs are found by it). */
  failedNode?: string | null;
}

/** Ends (or parks) a held run and gives up its lease; parameters from endingParams. */
export const END_LEASED_RUN = `UPDATE runs SET status = ?, error = ?, wake_at = ?, finished_at = ?, failed_node = ?, lease_owner = NULL, lease_until = NULL
     WHERE id = ? AND lease_fence = ? AND status = 'running'`;

export const endingParams = (run: { id: string; leaseFence: number }, ending: LeasedRunEnding) =>
  [ending.status, ending.error, ending.wakeAt, ending.finishedAt, ending.status === 'failed' ? (ending.failedNode ?? null) : null, run.id, run.leaseFence];

/** Ends (or parks) a run and gives up its lease, when this worker still holds it; false when it does not. */
export async function endLeasedRun(sql: Sql, run: { id: string; leaseFence: number }, ending: LeasedRunEnding): Promise<boolean> {
  const changed = await sql.run(END_LEASED_RUN, endingParams(run, ending));
  return changed === 1;
}

/** Makes a run this worker gives up leasable at once, instead of after its lease lapses. */
export async function releaseRunLease(sql: Sql, run: { id: string; leaseFence: number }): Promise<void> {
  await sql.run(`UPDATE runs SET lease_until = 0 WHERE id = ? AND lease_fence = ? AND status = 'running'`, [run.id, run.leaseFence]);
}

export async function getRun(sql: Sql, id: string): Promise<RunRow | undefined> {
  const row = await sql.get(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`, [id]);
  return row ? toRun(row) : undefined;
}

/** Only a run's status: for waiting on a run without reading (and parsing) its input. */
export async function getRunStatus(sql: Sql, id: string): Promise<RunStatus | undefined> {
  const row = await sql.get('SELECT status FROM runs WHERE id = ?', [id]);
  return row ? (row.status as RunStatus) : undefined;
}

/** Moves a run between statuses when it is in one of `from`; bumps the fence so a worker still holding it stops. */
export async function transitionRun(
  sql: Sql,
  id: string,
  from: readonly RunStatus[],
  to: RunStatus,
  changes: { attemptIncrement?: boolean; now: number },
): Promise<boolean> {
  // A run sent back to the queue (a rerun, a review decision) of a paused flow waits as
  // held instead, decided in the same statement as new runs are: it is never leased.
  const changed = await sql.run(
    `UPDATE runs SET status = CASE WHEN ? = 'queued' AND EXISTS (SELECT 1 FROM flows WHERE flows.id = runs.flow_id AND flows.paused_at IS NOT NULL)
         THEN 'held' ELSE ? END,
       lease_owner = NULL, lease_until = NULL, wake_at = NULL, lease_fence = lease_fence + 1,
       attempt = attempt + ?, error = NULL, failed_node = NULL, finished_at = ?
     WHERE id = ? AND ${isOneOf(sql.dialect, 'status')}`,
    [to, to, changes.attemptIncrement ? 1 : 0, to === 'cancelled' ? changes.now : null, id, [...from]],
  );
  return changed === 1;
}
