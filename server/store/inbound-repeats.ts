/**
 * A repeated delivery's record. A repeat rewrites its inbound row anyway (the counter and
 * the time last seen), so its number and time are appended to that row too, as
 * "number:time" items in `repeats`, instead of a `webhook.duplicate` row on the original
 * run's timeline: that row's (run_id, id) index entry landed wherever the run's entries
 * are, a page of its own in nearly every group commit (ARCHITECTURE.md, *A repeat's one
 * row*). The run page shows them as timeline events from here (`repeatEvents`).
 *
 * The first MAX_LISTED_REPEATS are listed one by one and the counter holds them all, so a
 * sender that retries forever keeps the row small. When an id past its dedupe window is
 * taken over by a new run, the old run's repeats are written to its timeline as the rows
 * they used to be (inbound.ts, inbound-batch.ts), since the row no longer speaks for that run.
 * Timelines keep the `webhook.duplicate` rows written before this column existed.
 */
import type { Sql } from './db.ts';
import type { RunStatus, TimelineEvent } from './types.ts';

export const MAX_LISTED_REPEATS = 50;

/**
 * The upsert's assignment that lists one more repeat: its number (the row's count before it
 * plus two, the first delivery being the first) and the delivery's time. Both dialects.
 */
export const APPEND_REPEAT = `CASE WHEN inbound_events.duplicates < ${MAX_LISTED_REPEATS}
       THEN COALESCE(inbound_events.repeats || ',', '') || CAST(inbound_events.duplicates + 2 AS TEXT) || ':' || CAST(excluded.last_seen_at AS TEXT)
       ELSE inbound_events.repeats END`;

/** What an inbound row says of its run's repeats. */
export interface RepeatRecord {
  runId: string;
  eventId: string;
  /** The trigger step the deliveries came to, which the events name. */
  nodeId: string | null;
  duplicates: number;
  lastSeenAt: number;
  repeats: string | null;
}

/**
 * The repeats as timeline events, oldest first: one per listed repeat, and one more for
 * those counted beyond the list (the latest, with how many went unlisted before it).
 * They have no id: they are not stored events, and no timeline page's cursor can name them.
 */
export function repeatEvents(record: RepeatRecord): TimelineEvent[] {
  const event = (repeat: number, createdAt: number, extra: Record<string, unknown> = {}): TimelineEvent => ({
    runId: record.runId, type: 'webhook.duplicate', nodeId: record.nodeId, attempt: 1, data: { eventId: record.eventId, repeat, ...extra }, createdAt,
  });
  if (!record.repeats) return [];
  const listed = record.repeats.split(',').map((item) => {
    const [repeat, at] = item.split(':');
    return event(Number(repeat), Number(at));
  });
  const lastListed = Number(listed.at(-1)?.data?.repeat ?? 1);
  const latest = record.duplicates + 1;
  if (latest > lastListed) listed.push(event(latest, record.lastSeenAt, { notListed: latest - lastListed - 1 }));
  return listed;
}

/** What a run's page shows of its repeats: how many its inbound row has counted, and the listed ones as events. */
export interface RunRepeats {
  counted: number;
  events: TimelineEvent[];
}

const NO_REPEATS: RunRepeats = { counted: 0, events: [] };

/**
 * The run's inbound row while it still holds the run: found through the trigger's hook by the
 * unique (hook, event id) key. Each argument is an SQL expression (a parameter, or a column of
 * an outer query), so the page's read and the watcher's look find the same row.
 */
const inboundRowOfRun = (run: { id: string; flowId: string; triggerNode: string; eventId: string }) =>
  `triggers JOIN inbound_events ON inbound_events.hook_id = triggers.hook_id AND inbound_events.event_id = ${run.eventId}
     WHERE triggers.flow_id = ${run.flowId} AND triggers.node_id = ${run.triggerNode} AND inbound_events.run_id = ${run.id}`;

// The placeholders in the order they appear: event id, flow, trigger step, run.
const RUN_REPEATS = `SELECT inbound_events.duplicates, inbound_events.last_seen_at, inbound_events.repeats
     FROM ${inboundRowOfRun({ id: '?', flowId: '?', triggerNode: '?', eventId: '?' })}`;

/** The run's repeats while its inbound row still holds it. */
export async function readRunRepeats(sql: Sql, run: { id: string; flowId: string; triggerNode: string | null; eventId: string | null }): Promise<RunRepeats> {
  if (run.triggerNode === null || run.eventId === null) return NO_REPEATS;
  const row = await sql.get<{ duplicates: number; last_seen_at: number; repeats: string | null }>(RUN_REPEATS, [run.eventId, run.flowId, run.triggerNode, run.id]);
  if (!row) return NO_REPEATS;
  const duplicates = Number(row.duplicates);
  return {
    counted: duplicates,
    events: repeatEvents({ runId: run.id, eventId: run.eventId, nodeId: run.triggerNode, duplicates, lastSeenAt: Number(row.last_seen_at), repeats: row.repeats }),
  };
}

const STATUS_AND_REPEATS = `SELECT runs.status,
       (SELECT inbound_events.duplicates FROM ${inboundRowOfRun({ id: 'runs.id', flowId: 'runs.flow_id', triggerNode: 'runs.trigger_node', eventId: 'runs.event_id' })}) AS duplicates
     FROM runs WHERE runs.id = ?`;

/**
 * A watcher's look at a run: its status and how many repeats of its event have been counted,
 * in one statement. A repeat writes no timeline event, so the count is how a page watching
 * an active run learns that one arrived.
 */
export async function readRunStatusAndRepeats(sql: Sql, id: string): Promise<{ status: RunStatus; repeatsCounted: number } | undefined> {
  const row = await sql.get<{ status: RunStatus; duplicates: number | null }>(STATUS_AND_REPEATS, [id]);
  return row ? { status: row.status, repeatsCounted: Number(row.duplicates ?? 0) } : undefined;
}
