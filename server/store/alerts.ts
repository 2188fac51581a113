/**
 * The alert outbox and the stored default alerts (migration 0015). An alert row is
 * inserted in the transaction that ends its run; the sender leases due rows, stamps the
 * key of the message that carries them, and settles them with the message's claim.
 */
import { isOneOf, perDialect } from './batch.ts';
import type { Sql } from './db.ts';
import { ALERT_DEFAULTS_COLUMNS, ALERT_OUTBOX_COLUMNS, toAlertDefaults, toAlertOutbox, toJson, type AlertDefaultsRow, type AlertOutboxRow } from './rows.ts';

export type { AlertDefaultsRow, AlertOutboxRow };

export interface NewAlert {
  id: string;
  flowId: string;
  runId: string | null;
  kind: string;
  alertKey: string;
  message: string | null;
  dueAt: number;
  now: number;
}

/**
 * Records an alert once per (flow, key). A key whose earlier alert was dropped (the run
 * was rerun before it went out) is queued again; one pending, sending or sent stays as it is.
 * Returns whether a row was written.
 */
export async function queueAlert(sql: Sql, alert: NewAlert): Promise<boolean> {
  const changed = await sql.run(
    `INSERT INTO alert_outbox (id, flow_id, run_id, kind, alert_key, status, message, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', ?, 0, ?, ?)
     ON CONFLICT (flow_id, alert_key) DO UPDATE SET status = 'pending', message = excluded.message, attempts = 0, last_error = NULL,
       batch_key = NULL, lease_until = NULL, next_attempt_at = excluded.next_attempt_at, created_at = excluded.created_at
     WHERE alert_outbox.status = 'dropped'`,
    [alert.id, alert.flowId, alert.runId, alert.kind, alert.alertKey, alert.message, alert.dueAt, alert.now],
  );
  return changed === 1;
}

/** Alerts due now: pending ones whose time has come, and ones whose sender died mid-send. */
export async function dueAlerts(sql: Sql, now: number, limit: number): Promise<AlertOutboxRow[]> {
  const rows = await sql.all(
    `SELECT ${ALERT_OUTBOX_COLUMNS} FROM alert_outbox
     WHERE status = 'pending' AND next_attempt_at <= ?
     UNION ALL
     SELECT ${ALERT_OUTBOX_COLUMNS} FROM alert_outbox WHERE status = 'sending' AND lease_until < ?
     ORDER BY created_at LIMIT ?`,
    [now, now, limit],
  );
  return rows.map(toAlertOutbox);
}

/** Pending alerts of some flows, due or not (gathered with the due ones of the same flow and kind). */
export async function pendingAlertsOf(sql: Sql, flowIds: readonly string[], limit: number): Promise<AlertOutboxRow[]> {
  if (flowIds.length === 0) return [];
  const rows = await sql.all(
    `SELECT ${ALERT_OUTBOX_COLUMNS} FROM alert_outbox WHERE status = 'pending' AND ${isOneOf(sql.dialect, 'flow_id')} ORDER BY created_at LIMIT ?`,
    [[...flowIds], limit],
  );
  return rows.map(toAlertOutbox);
}

const LEASE_ALERTS = perDialect((dialect) =>
  `UPDATE alert_outbox SET status = 'sending', lease_until = ?
   WHERE ${isOneOf(dialect, 'id')} AND (status = 'pending' OR (status = 'sending' AND lease_until < ?))
   RETURNING id`);

/** Takes the rows among `ids` nobody else holds; returns the ids taken. */
export async function leaseAlerts(sql: Sql, ids: readonly string[], leaseUntil: number, now: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await sql.all<{ id: string }>(LEASE_ALERTS[sql.dialect], [leaseUntil, [...ids], now]);
  return rows.map((row) => row.id);
}

/** Names the message that carries these rows; kept across a crash, so a resend uses the same key. */
export async function stampBatch(sql: Sql, ids: readonly string[], batchKey: string): Promise<void> {
  await sql.run(`UPDATE alert_outbox SET batch_key = ? WHERE ${isOneOf(sql.dialect, 'id')}`, [batchKey, [...ids]]);
}

export async function extendAlertLease(sql: Sql, ids: readonly string[], leaseUntil: number): Promise<void> {
  await sql.run(`UPDATE alert_outbox SET lease_until = ? WHERE status = 'sending' AND ${isOneOf(sql.dialect, 'id')}`, [leaseUntil, [...ids]]);
}

export interface AlertSettlement {
  status: 'pending' | 'sent' | 'uncertain' | 'dropped' | 'given_up';
  lastError: string | null;
  /** Counts a delivery try. */
  tried: boolean;
  nextAttemptAt: number;
  now: number;
}

/** Settles leased rows: sent, back to pending for a retry, uncertain, dropped or given up. */
export async function settleAlerts(sql: Sql, ids: readonly string[], outcome: AlertSettlement): Promise<void> {
  if (ids.length === 0) return;
  await sql.run(
    `UPDATE alert_outbox SET status = ?, last_error = ?, attempts = attempts + ?, next_attempt_at = ?, lease_until = NULL,
       sent_at = ?, batch_key = CASE WHEN ? = 1 THEN NULL ELSE batch_key END
     WHERE ${isOneOf(sql.dialect, 'id')}`,
    [outcome.status, outcome.lastError, outcome.tried ? 1 : 0, outcome.nextAttemptAt, outcome.status === 'sent' ? outcome.now : null, outcome.status === 'pending' ? 1 : 0, [...ids]],
  );
}

/** Alerts whose delivery failed and that are not sent yet (retrying, uncertain or given up), newest first. */
export async function undeliveredAlerts(sql: Sql, filter: { flowId?: string; runId?: string }, limit: number): Promise<AlertOutboxRow[]> {
  const where = ['last_error IS NOT NULL', `status <> 'sent'`, `status <> 'dropped'`];
  const params: unknown[] = [];
  if (filter.flowId) {
    where.push('flow_id = ?');
    params.push(filter.flowId);
  }
  if (filter.runId) {
    where.push('run_id = ?');
    params.push(filter.runId);
  }
  const rows = await sql.all(`SELECT ${ALERT_OUTBOX_COLUMNS} FROM alert_outbox WHERE ${where.join(' AND ')} ORDER BY created_at DESC LIMIT ?`, [...params, limit]);
  return rows.map(toAlertOutbox);
}

export async function alertsOfRun(sql: Sql, runId: string): Promise<AlertOutboxRow[]> {
  const rows = await sql.all(`SELECT ${ALERT_OUTBOX_COLUMNS} FROM alert_outbox WHERE run_id = ? ORDER BY created_at`, [runId]);
  return rows.map(toAlertOutbox);
}

export async function countSentAlerts(sql: Sql): Promise<number> {
  const row = await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM alert_outbox WHERE status = 'sent'`);
  return Number(row?.n ?? 0);
}

/** Current statuses of some runs (an alert about a run rerun since is no longer true). */
export async function runStatuses(sql: Sql, runIds: readonly string[]): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const rows = await sql.all<{ id: string; status: string }>(`SELECT id, status FROM runs WHERE ${isOneOf(sql.dialect, 'id')}`, [[...runIds]]);
  return new Map(rows.map((row) => [row.id, row.status]));
}

export interface FlowForAlerts {
  flowId: string;
  name: string;
  /** The latest published version's document (JSON text), or null when none is published. */
  document: string | null;
}

/** Each flow's name and latest published document, where the alert settings in force live. */
export async function flowsForAlerts(sql: Sql, flowIds: readonly string[]): Promise<FlowForAlerts[]> {
  if (flowIds.length === 0) return [];
  const rows = await sql.all<{ id: string; name: string; document: string | null }>(
    `SELECT f.id, f.name, (SELECT v.document FROM flow_versions v WHERE v.flow_id = f.id AND v.version > 0 ORDER BY v.version DESC LIMIT 1) AS document
     FROM flows f WHERE ${isOneOf(sql.dialect, 'f.id')}`,
    [[...flowIds]],
  );
  return rows.map((row) => ({ flowId: row.id, name: row.name, document: row.document ?? null }));
}

/** The flows with refused webhook deliveries since `since`. */
export async function flowsWithRefusals(sql: Sql, since: number): Promise<string[]> {
  const rows = await sql.all<{ flow_id: string }>(
    `SELECT DISTINCT t.flow_id FROM webhook_rejections r JOIN triggers t ON t.hook_id = r.hook_id WHERE r.received_at >= ?`,
    [since],
  );
  return rows.map((row) => row.flow_id);
}

/** How many deliveries to a flow's webhooks were refused since `since`. */
export async function countRefusals(sql: Sql, flowId: string, since: number): Promise<number> {
  const row = await sql.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM webhook_rejections r JOIN triggers t ON t.hook_id = r.hook_id WHERE t.flow_id = ? AND r.received_at >= ?`,
    [flowId, since],
  );
  return Number(row?.n ?? 0);
}

export async function readAlertDefaults(sql: Sql): Promise<AlertDefaultsRow | undefined> {
  const row = await sql.get(`SELECT ${ALERT_DEFAULTS_COLUMNS} FROM alert_defaults WHERE id = 1`);
  return row ? toAlertDefaults(row) : undefined;
}

export async function saveAlertDefaults(sql: Sql, settings: unknown, by: string, now: number): Promise<void> {
  await sql.run(
    `INSERT INTO alert_defaults (id, settings, updated_at, updated_by) VALUES (1, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    [toJson(settings), now, by],
  );
}

/** Drops pending alerts nobody is to receive (no settings, or the run is no longer in that state). */
export async function dropAlerts(sql: Sql, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await sql.run(`UPDATE alert_outbox SET status = 'dropped', next_attempt_at = ? WHERE status = 'pending' AND ${isOneOf(sql.dialect, 'id')}`, [now, [...ids]]);
}

/** When the flow's latest alert of a kind was recorded (refusal alerts go out once per window). */
export async function latestAlertAt(sql: Sql, flowId: string, kind: string): Promise<number | undefined> {
  const row = await sql.get<{ at: number | null }>(`SELECT MAX(created_at) AS at FROM alert_outbox WHERE flow_id = ? AND kind = ?`, [flowId, kind]);
  return row?.at == null ? undefined : Number(row.at);
}

/** Sends failed alerts again now (a person asked), instead of waiting for the next try. */
export async function retryAlertsNow(sql: Sql, ids: readonly string[], now: number): Promise<number> {
  if (ids.length === 0) return 0;
  return sql.run(
    `UPDATE alert_outbox SET status = 'pending', next_attempt_at = ?, batch_key = NULL WHERE status IN ('pending', 'given_up') AND ${isOneOf(sql.dialect, 'id')}`,
    [now, [...ids]],
  );
}

/** The sweeper: forgets alerts nobody was to receive, and sent ones past their claim's keep time. */
export async function pruneAlerts(sql: Sql, droppedBefore: number, sentBefore: number): Promise<number> {
  return sql.run(
    `DELETE FROM alert_outbox WHERE (status = 'dropped' AND created_at < ?) OR (status = 'sent' AND created_at < ?)`,
    [droppedBefore, sentBefore],
  );
}

/** A flow's alerts of one kind recorded since `since` (dropped ones aside), and when one of them last went out. */
export async function recentAlerts(sql: Sql, flowId: string, kind: string, since: number): Promise<{ count: number; lastSentAt: number | null }> {
  const row = await sql.get<{ n: number; last: number | null }>(
    `SELECT COUNT(*) AS n, MAX(sent_at) AS last FROM alert_outbox WHERE flow_id = ? AND kind = ? AND created_at >= ? AND status <> 'dropped'`,
    [flowId, kind, since],
  );
  return { count: Number(row?.n ?? 0), lastSentAt: row?.last == null ? null : Number(row.last) };
}
