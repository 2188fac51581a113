/**
 * Inbound events (webhook deliveries, schedule fires) and refused deliveries. Ingestion is
 * the hottest write path: one transaction decides new-or-repeat with one insert under the
 * unique (hook, event id) index, never a read-then-write.
 */
import { isOneOf } from './batch.ts';
import type { Sql } from './db.ts';
import { INBOUND_EVENT_COLUMNS, REJECTION_COLUMNS, toInboundEvent, toRejection, type RejectionRow } from './rows.ts';
import { ingestBatch } from './inbound-batch.ts';
import { APPEND_REPEAT, repeatEvents } from './inbound-repeats.ts';
import { insertRunRow, type NewRun } from './runs.ts';
import { insertEvents } from './timeline.ts';
import type { RunStatus, TimelineEvent } from './types.ts';

export interface Delivery {
  inboundId: string;
  hookId: string;
  eventId: string;
  run: NewRun;
  /** When this event id may be accepted again (the dedupe window). */
  expiresAt: number;
  /** Extra data for the `webhook.received` event (a repeat's is its event id and number: inbound-repeats.ts). */
  eventData: Record<string, unknown>;
}

/** A new delivery's run says its number and the status it was written with: running when it was leased on insert (`run.leaseTo`). */
export type IngestResult = { duplicate: false; runId: string; seq: number; status: RunStatus } | { duplicate: true; runId: string; duplicates: number };

/**
 * Records a delivery: a new event id takes a row and queues its run (held while the flow
 * is paused: runs.ts, newRunState), a repeat is counted and listed on its row (inbound-repeats.ts). Atomic
 * only under `db.durably` or inside a transaction: on PostgreSQL it is one statement (one
 * round trip; inbound-batch.ts, a batch of one), on SQLite four for a new id and one for a
 * repeat (two or three more for an id past its window).
 */
export async function ingestDelivery(sql: Sql, delivery: Delivery): Promise<IngestResult> {
  return sql.dialect === 'postgresql' ? (await ingestBatch(sql, [delivery]))[0]! : ingestStepByStep(sql, delivery);
}

const receivedEvent = (delivery: Delivery): TimelineEvent => ({
  runId: delivery.run.id, type: 'webhook.received', nodeId: delivery.run.triggerNode, attempt: 1, data: delivery.eventData, createdAt: delivery.run.createdAt,
});

/*
 * SQLite writes an index entry again for every column an UPDATE assigns, even to the value
 * it already holds. PostgreSQL's one-statement upsert (inbound-batch.ts) assigns the id, run and expiry of a
 * repeat to themselves, so each repeat rewrote three index entries at random places: about
 * a fifth of the pages a group commit of deliveries wrote. Here a repeat within its
 * window touches only its counter and time; an id past its window (rare) is taken over by
 * a second statement with the same effect as the CASE arms. Both run in the caller's
 * transaction, so nothing can come between them.
 */
const INSERT_OR_COUNT_REPEAT = `INSERT INTO inbound_events (id, hook_id, event_id, run_id, duplicates, received_at, last_seen_at, expires_at)
     VALUES (?, ?, ?, ?, 0, ?, ?, ?)
     ON CONFLICT (hook_id, event_id) DO UPDATE SET duplicates = inbound_events.duplicates + 1, last_seen_at = excluded.last_seen_at,
       repeats = ${APPEND_REPEAT}
       WHERE inbound_events.expires_at >= ?
     RETURNING run_id, duplicates`;
const EXPIRED_REPEATS = `SELECT run_id, duplicates, last_seen_at, repeats FROM inbound_events
     WHERE hook_id = ? AND event_id = ? AND expires_at < ? AND repeats IS NOT NULL`;
const TAKE_OVER_EXPIRED = `UPDATE inbound_events SET id = ?, run_id = ?, duplicates = 0, received_at = ?, last_seen_at = ?, expires_at = ?, repeats = NULL
     WHERE hook_id = ? AND event_id = ? AND expires_at < ?
     RETURNING run_id, duplicates`;

/** An id past its window goes to the new run; the repeats the row listed for the old one go to the old run's timeline first. */
async function takeOverExpired(sql: Sql, delivery: Delivery) {
  const now = delivery.run.createdAt;
  const { inboundId, hookId, eventId, expiresAt, run } = delivery;
  const old = await sql.get<{ run_id: string; duplicates: number; last_seen_at: number; repeats: string | null }>(EXPIRED_REPEATS, [hookId, eventId, now]);
  if (old) {
    await insertEvents(sql, repeatEvents({
      runId: old.run_id, eventId, nodeId: run.triggerNode, duplicates: Number(old.duplicates), lastSeenAt: Number(old.last_seen_at), repeats: old.repeats,
    }));
  }
  return sql.get<{ run_id: string; duplicates: number }>(TAKE_OVER_EXPIRED, [inboundId, run.id, now, now, expiresAt, hookId, eventId, now]);
}

async function ingestStepByStep(sql: Sql, delivery: Delivery): Promise<IngestResult> {
  const now = delivery.run.createdAt;
  const { inboundId, hookId, eventId, expiresAt, run } = delivery;
  const row = await sql.get<{ run_id: string; duplicates: number }>(INSERT_OR_COUNT_REPEAT, [inboundId, hookId, eventId, run.id, now, now, expiresAt, now])
    ?? await takeOverExpired(sql, delivery);
  if (!row) throw new Error(`inbound event ${hookId}/${eventId} was not recorded`);
  if (row.run_id === run.id) {
    const { seq, status } = await insertRunRow(sql, run, [receivedEvent(delivery)]);
    return { duplicate: false, runId: run.id, seq, status };
  }
  // The repeat is listed on the row the upsert just counted it on (inbound-repeats.ts).
  return { duplicate: true, runId: row.run_id, duplicates: Number(row.duplicates) };
}

// A reason may quote what was sent (a URL, a JSON parser's excerpt); PostgreSQL cannot
// store NUL, and a log line should not break on a line feed.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

export async function recordRejection(sql: Sql, hookId: string, status: number, reason: string, now: number): Promise<void> {
  const printable = (text: string) => text.replace(CONTROL_CHARACTERS, '\uFFFD');
  await sql.run(`INSERT INTO webhook_rejections (hook_id, status, reason, received_at) VALUES (?, ?, ?, ?)`, [printable(hookId), status, printable(reason.slice(0, 500)), now]);
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

function toDelivery(row: Record<string, unknown>, runStatus: string | null): InboxDelivery {
  const { id, hookId, eventId, runId, duplicates, receivedAt, lastSeenAt } = toInboundEvent(row);
  return { id, hookId, eventId, runId, runStatus, duplicates, receivedAt, lastSeenAt };
}

export async function listDeliveries(sql: Sql, hookIds: string[], limit: number): Promise<InboxDelivery[]> {
  if (hookIds.length === 0) return [];
  const columns = INBOUND_EVENT_COLUMNS.split(', ').map((column) => `i.${column}`).join(', ');
  const rows = await sql.all<Record<string, unknown>>(
    `SELECT ${columns}, r.status AS run_status
     FROM inbound_events i LEFT JOIN runs r ON r.id = i.run_id
     WHERE ${isOneOf(sql.dialect, 'i.hook_id')} ORDER BY i.received_at DESC LIMIT ?`,
    [hookIds, limit],
  );
  return rows.map((row) => toDelivery(row, (row.run_status as string | null) ?? null));
}

export async function listRejections(sql: Sql, hookIds: string[], limit: number): Promise<RejectionRow[]> {
  if (hookIds.length === 0) return [];
  const rows = await sql.all(
    `SELECT ${REJECTION_COLUMNS} FROM webhook_rejections WHERE ${isOneOf(sql.dialect, 'hook_id')} ORDER BY id DESC LIMIT ?`,
    [hookIds, limit],
  );
  return rows.map(toRejection);
}

export async function getDelivery(sql: Sql, id: string): Promise<InboxDelivery | undefined> {
  const row = await sql.get(`SELECT ${INBOUND_EVENT_COLUMNS} FROM inbound_events WHERE id = ?`, [id]);
  return row ? toDelivery(row, null) : undefined;
}

/** The sweeper: forgets event ids past their dedupe window and old rejections. */
export async function pruneInbound(sql: Sql, now: number, rejectionsOlderThan: number): Promise<number> {
  const events = await sql.run(`DELETE FROM inbound_events WHERE expires_at < ?`, [now]);
  const rejections = await sql.run(`DELETE FROM webhook_rejections WHERE received_at < ?`, [rejectionsOlderThan]);
  return events + rejections;
}
