/**
 * Run rows. The database owns the lease: one UPDATE picks the runs, bumps their fence and
 * hands them to one worker (PostgreSQL skips rows another worker is locking); every later
 * write by that worker names the fence it got.
 */
import type { RunRow, RunStatus, TimelineEvent } from '../engine/types.ts';
import type { Db, Sql } from './db.ts';
import { RUN_COLUMNS, toJson, toRun } from './rows.ts';
import { insertEvents } from './timeline.ts';

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
}

/** Inserts a queued run with its `run.queued` event; returns its number. */
export async function insertRun(sql: Sql, run: NewRun, extraEvents: TimelineEvent[] = []): Promise<number> {
  const seq =
    sql.dialect === 'sqlite' ? '(SELECT COALESCE(MAX(seq), 0) + 1 FROM runs)' : "nextval('runs_seq_seq')";
  const row = await sql.get<{ seq: number }>(
    `INSERT INTO runs (id, seq, flow_id, version_id, status, input, trigger_kind, trigger_node, event_id, replay_of, attempt, lease_fence, created_at, created_by)
     VALUES (?, ${seq}, ?, ?, 'queued', ?, ?, ?, ?, ?, 1, 0, ?, ?) RETURNING seq`,
    [run.id, run.flowId, run.versionId, toJson(run.input), run.triggerKind, run.triggerNode, run.eventId, run.replayOf, run.createdAt, run.createdBy],
  );
  await insertEvents(sql, [...extraEvents, queuedEvent(run)]);
  return Number(row!.seq);
}

/** The `run.queued` event every new run's timeline starts with (after what started it). */
export function queuedEvent(run: NewRun): TimelineEvent {
  return { runId: run.id, type: 'run.queued', nodeId: null, attempt: 1, data: { trigger: run.triggerKind, eventId: run.eventId, replayOf: run.replayOf }, createdAt: run.createdAt };
}

export interface LeaseRequest {
  workerId: string;
  limit: number;
  leaseMs: number;
  now: number;
}

/**
 * Leases up to `limit` runs. Queued runs come first, in order, through the (status, seq)
 * index; runs whose delay is due or whose worker died (lease lapsed) are looked for only
 * when the queue leaves room, so the common case is one indexed probe.
 */
export async function leaseRuns(db: Db, request: LeaseRequest): Promise<RunRow[]> {
  const queued = await leaseWhere(db, request, `status = 'queued' ORDER BY seq`);
  if (queued.length >= request.limit) return queued;
  const rest = { ...request, limit: request.limit - queued.length };
  const due = await leaseWhere(db, rest, `status = 'waiting' AND wake_at <= ? ORDER BY wake_at`, [request.now]);
  if (queued.length + due.length >= request.limit) return [...queued, ...due];
  const lapsed = await leaseWhere(db, { ...rest, limit: rest.limit - due.length }, `status = 'running' AND lease_until < ? ORDER BY lease_until`, [request.now]);
  return [...queued, ...due, ...lapsed];
}

async function leaseWhere(db: Db, request: LeaseRequest, where: string, whereParams: unknown[] = []): Promise<RunRow[]> {
  const lock = db.dialect === 'postgresql' ? 'FOR UPDATE SKIP LOCKED' : '';
  const rows = await db.durably((sql) => sql.all(
    `UPDATE runs SET status = 'running', lease_owner = ?, lease_until = ?, lease_fence = lease_fence + 1,
       wake_at = NULL, started_at = COALESCE(started_at, ?)
     WHERE id IN (SELECT id FROM runs WHERE ${where} LIMIT ? ${lock})
     RETURNING ${RUN_COLUMNS}`,
    [request.workerId, request.now + request.leaseMs, request.now, ...whereParams, request.limit],
  ));
  return rows.map(toRun).sort((a, b) => a.seq - b.seq);
}

/**
 * Extends the leases a worker still holds; returns the ids it no longer holds. One
 * statement, so a worker frozen half-way (a pause, a SIGSTOP) never sits on row locks.
 */
export async function heartbeatRuns(db: Db, runs: { id: string; fence: number }[], until: number): Promise<string[]> {
  if (runs.length === 0) return [];
  const held = await db.durably((sql) => sql.all<{ id: string }>(
    `UPDATE runs SET lease_until = ? WHERE status = 'running' AND (${runs.map(() => '(id = ? AND lease_fence = ?)').join(' OR ')}) RETURNING id`,
    [until, ...runs.flatMap((run) => [run.id, run.fence])],
  ));
  const kept = new Set(held.map((row) => row.id));
  return runs.filter((run) => !kept.has(run.id)).map((run) => run.id);
}

export async function getRun(sql: Sql, id: string): Promise<RunRow | undefined> {
  const row = await sql.get(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`, [id]);
  return row ? toRun(row) : undefined;
}

export interface RunFilter {
  flowId?: string;
  status?: RunStatus;
  /** A run id, a run number (`12` or `#12`), or a webhook event id. */
  search?: string;
  /** Runs with a number below this (for the next page). */
  beforeSeq?: number;
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

export async function listRuns(sql: Sql, filter: RunFilter): Promise<RunRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.flowId) { where.push('flow_id = ?'); params.push(filter.flowId); }
  if (filter.status) { where.push('status = ?'); params.push(filter.status); }
  // Every run number fits the column, so a cursor beyond it leaves every run in.
  if (filter.beforeSeq !== undefined && filter.beforeSeq <= MAX_RUN_NUMBER) { where.push('seq < ?'); params.push(filter.beforeSeq); }
  const search = filter.search?.trim();
  if (search) {
    const number = runNumber(search);
    where.push(number === null ? '(id = ? OR event_id = ?)' : '(id = ? OR event_id = ? OR seq = ?)');
    params.push(search, search, ...(number === null ? [] : [number]));
  }
  params.push(filter.limit);
  const rows = await sql.all(
    `SELECT ${RUN_COLUMNS} FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`,
    params,
  );
  return rows.map(toRun);
}

/** Moves a run between statuses when it is in one of `from`; bumps the fence so a worker still holding it stops. */
export async function transitionRun(
  sql: Sql,
  id: string,
  from: readonly RunStatus[],
  to: RunStatus,
  changes: { attemptIncrement?: boolean; now: number },
): Promise<boolean> {
  const settled = to === 'cancelled' ? ', finished_at = ?' : ', finished_at = NULL';
  const params: unknown[] = [to];
  if (to === 'cancelled') params.push(changes.now);
  params.push(id, ...from);
  const changed = await sql.run(
    `UPDATE runs SET status = ?, lease_owner = NULL, lease_until = NULL, wake_at = NULL, lease_fence = lease_fence + 1,
       attempt = attempt + ${changes.attemptIncrement ? 1 : 0}, error = NULL${settled}
     WHERE id = ? AND status IN (${from.map(() => '?').join(', ')})`,
    params,
  );
  return changed === 1;
}

/** How many duplicates were stopped and steps skipped, per run. */
export async function stepCounts(sql: Sql, runIds: string[]): Promise<Map<string, { duplicates: number; skipped: number }>> {
  const counts = new Map<string, { duplicates: number; skipped: number }>();
  if (runIds.length === 0) return counts;
  const rows = await sql.all<{ run_id: string; type: string; n: number }>(
    `SELECT run_id, type, COUNT(*) AS n FROM timeline_events
     WHERE run_id IN (${runIds.map(() => '?').join(', ')}) AND type IN ('step.duplicate', 'step.skipped')
     GROUP BY run_id, type`,
    runIds,
  );
  for (const row of rows) {
    const entry = counts.get(row.run_id) ?? { duplicates: 0, skipped: 0 };
    if (row.type === 'step.duplicate') entry.duplicates = Number(row.n);
    else entry.skipped = Number(row.n);
    counts.set(row.run_id, entry);
  }
  return counts;
}

export interface FlowRunStats {
  runsToday: number;
  failuresToday: number;
  duplicatesThisWeek: number;
}

/** Per flow: runs and failures since `dayStart`, duplicates stopped since `weekStart`. */
export async function flowRunStats(sql: Sql, dayStart: number, weekStart: number): Promise<Map<string, FlowRunStats>> {
  const stats = new Map<string, FlowRunStats>();
  const entry = (flowId: string) => {
    let value = stats.get(flowId);
    if (!value) stats.set(flowId, (value = { runsToday: 0, failuresToday: 0, duplicatesThisWeek: 0 }));
    return value;
  };
  const runs = await sql.all<{ flow_id: string; runs: number; failures: number }>(
    `SELECT flow_id, COUNT(*) AS runs, SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failures
     FROM runs WHERE created_at >= ? GROUP BY flow_id`,
    [dayStart],
  );
  for (const row of runs) Object.assign(entry(row.flow_id), { runsToday: Number(row.runs), failuresToday: Number(row.failures) });
  const duplicates = await sql.all<{ flow_id: string; n: number }>(
    `SELECT r.flow_id, COUNT(*) AS n FROM timeline_events e JOIN runs r ON r.id = e.run_id
     WHERE e.type = 'step.duplicate' AND e.created_at >= ? GROUP BY r.flow_id`,
    [weekStart],
  );
  for (const row of duplicates) entry(row.flow_id).duplicatesThisWeek = Number(row.n);
  return stats;
}

/** Versions' numbers by id, for lists that show which version a run ran. */
export async function versionNumbers(sql: Sql, versionIds: string[]): Promise<Map<string, number>> {
  if (versionIds.length === 0) return new Map();
  const rows = await sql.all<{ id: string; version: number }>(`SELECT id, version FROM flow_versions WHERE id IN (${versionIds.map(() => '?').join(', ')})`, versionIds);
  return new Map(rows.map((row) => [row.id, Number(row.version)]));
}
