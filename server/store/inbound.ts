/**
 * Inbound events (webhook deliveries, schedule fires) and refused deliveries. Ingestion is
 * the hottest write path: one transaction decides new-or-repeat with one insert under the
 * unique (hook, event id) index, never a read-then-write.
 */
import type { TimelineEvent } from '../engine/types.ts';
import type { Sql } from './db.ts';
import { insertRun, type NewRun } from './runs.ts';
import { insertEvents } from './timeline.ts';

export interface Delivery {
  inboundId: string;
  hookId: string;
  eventId: string;
  run: NewRun;
  /** When this event id may be accepted again (the dedupe window). */
  expiresAt: number;
  /** Extra data for the `webhook.received` / `webhook.duplicate` events. */
  eventData: Record<string, unknown>;
}

export type IngestResult = { duplicate: false; runId: string } | { duplicate: true; runId: string; duplicates: number };

/** Must run inside a transaction. */
export async function ingestDelivery(tx: Sql, delivery: Delivery): Promise<IngestResult> {
  const now = delivery.run.createdAt;
  // One statement decides new or repeat: a new id (or one past its dedupe window) takes the
  // row with this delivery's run; a repeat only counts itself. The run id that comes back
  // says which happened.
  const row = await tx.get<{ run_id: string; duplicates: number }>(
    `INSERT INTO inbound_events (id, hook_id, event_id, run_id, duplicates, received_at, last_seen_at, expires_at)
     VALUES (?, ?, ?, ?, 0, ?, ?, ?)
     ON CONFLICT (hook_id, event_id) DO UPDATE SET
       id = CASE WHEN inbound_events.expires_at < ? THEN excluded.id ELSE inbound_events.id END,
       run_id = CASE WHEN inbound_events.expires_at < ? THEN excluded.run_id ELSE inbound_events.run_id END,
       duplicates = CASE WHEN inbound_events.expires_at < ? THEN 0 ELSE inbound_events.duplicates + 1 END,
       received_at = CASE WHEN inbound_events.expires_at < ? THEN excluded.received_at ELSE inbound_events.received_at END,
       expires_at = CASE WHEN inbound_events.expires_at < ? THEN excluded.expires_at ELSE inbound_events.expires_at END,
       last_seen_at = excluded.last_seen_at
     RETURNING run_id, duplicates`,
    [delivery.inboundId, delivery.hookId, delivery.eventId, delivery.run.id, now, now, delivery.expiresAt, now, now, now, now, now],
  );
  if (!row) throw new Error(`inbound event ${delivery.hookId}/${delivery.eventId} was not recorded`);
  if (row.run_id === delivery.run.id) {
    const received: TimelineEvent = { runId: delivery.run.id, type: 'webhook.received', nodeId: delivery.run.triggerNode, attempt: 1, data: delivery.eventData, createdAt: now };
    await insertRun(tx, delivery.run, [received]);
    return { duplicate: false, runId: delivery.run.id };
  }
  const duplicates = Number(row.duplicates);
  await insertEvents(tx, [{
    runId: row.run_id, type: 'webhook.duplicate', nodeId: delivery.run.triggerNode, attempt: 1,
    data: { ...delivery.eventData, repeat: duplicates + 1 }, createdAt: now,
  }]);
  return { duplicate: true, runId: row.run_id, duplicates };
}

export async function recordRejection(sql: Sql, hookId: string, status: number, reason: string, now: number): Promise<void> {
  await sql.run(`INSERT INTO webhook_rejections (hook_id, status, reason, received_at) VALUES (?, ?, ?, ?)`, [hookId, status, reason.slice(0, 500), now]);
}

export interface InboxDelivery {
  id: string;
  hookId: string;
  eventId: string;
  runId: string;
  runStatus: string | null;
  duplicates: number;
  receivedAt: number;
  lastSeenAt: number;
}

export async function listDeliveries(sql: Sql, hookIds: string[], limit: number): Promise<InboxDelivery[]> {
  if (hookIds.length === 0) return [];
  const rows = await sql.all<Record<string, unknown>>(
    `SELECT i.id, i.hook_id, i.event_id, i.run_id, i.duplicates, i.received_at, i.last_seen_at, r.status
     FROM inbound_events i LEFT JOIN runs r ON r.id = i.run_id
     WHERE i.hook_id IN (${hookIds.map(() => '?').join(', ')}) ORDER BY i.received_at DESC LIMIT ?`,
    [...hookIds, limit],
  );
  return rows.map((row) => ({
    id: row.id as string, hookId: row.hook_id as string, eventId: row.event_id as string, runId: row.run_id as string,
    runStatus: (row.status as string | null) ?? null, duplicates: Number(row.duplicates), receivedAt: Number(row.received_at), lastSeenAt: Number(row.last_seen_at),
  }));
}

export async function listRejections(sql: Sql, hookIds: string[], limit: number) {
  if (hookIds.length === 0) return [];
  const rows = await sql.all<Record<string, unknown>>(
    `SELECT id, hook_id, status, reason, received_at FROM webhook_rejections WHERE hook_id IN (${hookIds.map(() => '?').join(', ')}) ORDER BY id DESC LIMIT ?`,
    [...hookIds, limit],
  );
  return rows.map((row) => ({ id: Number(row.id), hookId: row.hook_id as string, status: Number(row.status), reason: row.reason as string, receivedAt: Number(row.received_at) }));
}

export async function getDelivery(sql: Sql, id: string): Promise<InboxDelivery | undefined> {
  const row = await sql.get<Record<string, unknown>>(`SELECT id, hook_id, event_id, run_id, duplicates, received_at, last_seen_at FROM inbound_events WHERE id = ?`, [id]);
  if (!row) return undefined;
  return {
    id: row.id as string, hookId: row.hook_id as string, eventId: row.event_id as string, runId: row.run_id as string, runStatus: null,
    duplicates: Number(row.duplicates), receivedAt: Number(row.received_at), lastSeenAt: Number(row.last_seen_at),
  };
}

/** The sweeper: forgets event ids past their dedupe window and old rejections. */
export async function pruneInbound(sql: Sql, now: number, rejectionsOlderThan: number): Promise<number> {
  const events = await sql.run(`DELETE FROM inbound_events WHERE expires_at < ?`, [now]);
  const rejections = await sql.run(`DELETE FROM webhook_rejections WHERE received_at < ?`, [rejectionsOlderThan]);
  return events + rejections;
}
