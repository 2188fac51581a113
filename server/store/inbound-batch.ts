/**
 * Many webhook deliveries recorded by one PostgreSQL statement. On PostgreSQL each
 * statement is a round trip, a transaction and a WAL flush of its own, and starting and
 * ending one cost the server more than the rows a delivery writes; under load, deliveries
 * that arrive together are therefore written together (ingest-queue.ts); a lone delivery
 * is a batch of one (inbound.ts).
 *
 * One rule the caller keeps: a batch holds each (hook, event id) once. An upsert may not
 * touch the same row twice in one statement, and a repeat inside the batch could not see
 * the run its first delivery queued.
 */
import type { Sql } from './db.ts';
import { toJson } from './rows.ts';
import { inputValues, inputValuesParam, searchedBody } from './input-values.ts';
import { NEW_RUN_STATE_COLUMNS, newRunState, queuedEvent } from './runs.ts';
import type { RunStatus } from './types.ts';
import type { Delivery, IngestResult } from './inbound.ts';
import { APPEND_REPEAT, MAX_LISTED_REPEATS } from './inbound-repeats.ts';

/** The fields of one delivery, in the order the statement reads them (`value ->> n`). */
const FIELDS = [
  'inbound_id', 'hook_id', 'event_id', 'run_id', 'now', 'expires_at', 'flow_id', 'version_id', 'input', 'trigger_kind',
  'trigger_node', 'replay_of', 'created_by', 'event_data', 'queued_data', 'input_values', 'lease_owner', 'lease_until',
] as const;
const TYPES: Partial<Record<(typeof FIELDS)[number], string>> = { now: 'bigint', expires_at: 'bigint', lease_until: 'bigint' };

const COLUMNS = FIELDS.map((name, index) =>
  name === 'input_values' ? `value -> ${index} AS ${name}` : `(value ->> ${index})${TYPES[name] ? `::${TYPES[name]}` : ''} AS ${name}`,
).join(', ');

/*
 * One statement decides new or repeat for every delivery of the batch: a new id (or one
 * past its dedupe window) takes the row with its delivery's run, a repeat only counts
 * itself, and the run id that comes back says which happened; only the rows that apply are
 * then written. PostgreSQL compares an updated row's indexed values and leaves unchanged
 * index entries alone (a HOT update), so the CASE arms cost it nothing (SQLite's form in
 * inbound.ts avoids them). The upsert compares an id's
 * window with the delivery's own time (`excluded.last_seen_at`), so deliveries of
 * different moments can share a statement. `ordinality` keeps the batch's order, which
 * gives runs their numbers and events their ids in the order deliveries arrived.
 *
 * A repeat is listed on its row (inbound-repeats.ts). An id taken over past its window
 * hands its old run's listed repeats to that run's timeline as rows: `expired` reads them
 * as they were before this statement (every part of a statement sees the same snapshot),
 * the last listed item's number says how many more were only counted.
 */
const INGEST_BATCH = `WITH batch AS MATERIALIZED (
    SELECT position, ${COLUMNS} FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS batch_rows(value, position)),
  expired AS MATERIALIZED (
    SELECT batch.position, old.run_id, batch.event_id, batch.trigger_node, old.duplicates, old.last_seen_at,
      old.repeats, (regexp_match(old.repeats, '([0-9]+):[0-9]+$'))[1]::int AS last_listed
    FROM batch CROSS JOIN LATERAL (
      -- One index lookup per delivery (LIMIT keeps the planner from joining the whole table).
      SELECT run_id, duplicates, last_seen_at, expires_at, repeats FROM inbound_events
      WHERE inbound_events.hook_id = batch.hook_id AND inbound_events.event_id = batch.event_id LIMIT 1) AS old
    WHERE old.expires_at < batch.now AND old.repeats IS NOT NULL),
  inbound AS (
    INSERT INTO inbound_events (id, hook_id, event_id, run_id, duplicates, received_at, last_seen_at, expires_at)
    SELECT inbound_id, hook_id, event_id, run_id, 0, now, now, expires_at FROM batch ORDER BY position
    ON CONFLICT (hook_id, event_id) DO UPDATE SET
      id = CASE WHEN inbound_events.expires_at < excluded.last_seen_at THEN excluded.id ELSE inbound_events.id END,
      run_id = CASE WHEN inbound_events.expires_at < excluded.last_seen_at THEN excluded.run_id ELSE inbound_events.run_id END,
      duplicates = CASE WHEN inbound_events.expires_at < excluded.last_seen_at THEN 0 ELSE inbound_events.duplicates + 1 END,
      received_at = CASE WHEN inbound_events.expires_at < excluded.last_seen_at THEN excluded.received_at ELSE inbound_events.received_at END,
      expires_at = CASE WHEN inbound_events.expires_at < excluded.last_seen_at THEN excluded.expires_at ELSE inbound_events.expires_at END,
      last_seen_at = excluded.last_seen_at,
      repeats = CASE WHEN inbound_events.expires_at < excluded.last_seen_at THEN NULL ELSE ${APPEND_REPEAT} END
    RETURNING hook_id, event_id, run_id, duplicates),
  answered AS MATERIALIZED (
    SELECT batch.*, inbound.run_id AS recorded_run, inbound.duplicates
    FROM batch JOIN inbound ON inbound.hook_id = batch.hook_id AND inbound.event_id = batch.event_id),
  queued AS (
    INSERT INTO runs (id, seq, flow_id, version_id, ${NEW_RUN_STATE_COLUMNS}, input, trigger_kind, trigger_node, event_id, replay_of, attempt, created_at, created_by)
    SELECT run_id, nextval('runs_seq_seq'), flow_id, version_id,
      ${newRunState({ paused: 'flow.paused', owner: 'lease_owner', until: 'lease_until', now: 'now' })},
      input, trigger_kind, trigger_node, event_id, replay_of, 1, now, created_by
    FROM answered CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM flows WHERE flows.id = answered.flow_id AND paused_at IS NOT NULL) AS paused) AS flow
    WHERE recorded_run = run_id ORDER BY position
    RETURNING id, seq, status),
  searchable AS (
    INSERT INTO run_input_values (path, value, run_seq)
    SELECT searched.value ->> 0, searched.value ->> 1, queued.seq
    FROM queued JOIN batch ON batch.run_id = queued.id CROSS JOIN jsonb_array_elements(batch.input_values) AS searched(value)),
  logged AS (
    INSERT INTO timeline_events (run_id, type, node_id, attempt, data, created_at)
    SELECT run_id, type, node_id, 1, data, created_at FROM (
      SELECT position, 0 AS step, items.place, run_id, 'webhook.duplicate' AS type, trigger_node AS node_id,
        jsonb_build_object('eventId', event_id, 'repeat', split_part(items.item, ':', 1)::int)::text AS data, split_part(items.item, ':', 2)::bigint AS created_at
      FROM expired CROSS JOIN LATERAL unnest(string_to_array(repeats, ',')) WITH ORDINALITY AS items(item, place)
      UNION ALL
      SELECT position, 0, ${MAX_LISTED_REPEATS} + 1, run_id, 'webhook.duplicate', trigger_node,
        jsonb_build_object('eventId', event_id, 'repeat', duplicates + 1, 'notListed', duplicates - last_listed)::text, last_seen_at
      FROM expired WHERE duplicates + 1 > last_listed
      UNION ALL
      SELECT position, 1, 0, run_id, 'webhook.received', trigger_node, event_data, now FROM answered WHERE recorded_run = run_id
      UNION ALL
      SELECT position, 2, 0, run_id, 'run.queued', NULL, queued_data, now FROM answered WHERE recorded_run = run_id
    ) AS written ORDER BY position, step, place)
  SELECT position, recorded_run AS run_id, duplicates, queued.seq, queued.status FROM answered LEFT JOIN queued ON queued.id = answered.recorded_run`;

/** One delivery as a row of the batch parameter. */
function batchRow(delivery: Delivery): unknown[] {
  const { run } = delivery;
  const eventData = JSON.stringify(delivery.eventData);
  const values: Record<(typeof FIELDS)[number], unknown> = {
    inbound_id: delivery.inboundId, hook_id: delivery.hookId, event_id: delivery.eventId, run_id: run.id,
    now: run.createdAt, expires_at: delivery.expiresAt, flow_id: run.flowId, version_id: run.versionId, input: toJson(run.input),
    trigger_kind: run.triggerKind, trigger_node: run.triggerNode, replay_of: run.replayOf, created_by: run.createdBy,
    event_data: eventData,
    queued_data: toJson(queuedEvent(run).data),
    input_values: inputValuesParam(inputValues(searchedBody(run))),
    lease_owner: run.leaseTo?.workerId ?? null, lease_until: run.leaseTo?.leaseUntil ?? null,
  };
  return FIELDS.map((name) => values[name]);
}

/**
 * Records deliveries with distinct (hook, event id) in one PostgreSQL statement; answers
 * in the deliveries' order. All or nothing: a statement fails as a whole.
 */
export async function ingestBatch(sql: Sql, deliveries: readonly Delivery[]): Promise<IngestResult[]> {
  if (sql.dialect !== 'postgresql') throw new Error('ingestBatch is the PostgreSQL statement; SQLite commits deliveries together in db.ts');
  const rows = await sql.all<{ position: number; run_id: string; duplicates: number; seq: number | null; status: RunStatus | null }>(INGEST_BATCH, [deliveries.map(batchRow)]);
  const answers = new Map(rows.map((row) => [Number(row.position), row]));
  return deliveries.map((delivery, index) => {
    const row = answers.get(index + 1);
    if (!row) throw new Error(`inbound event ${delivery.hookId}/${delivery.eventId} was not recorded`);
    return row.run_id === delivery.run.id
      ? { duplicate: false, runId: delivery.run.id, seq: Number(row.seq), status: row.status ?? 'queued' }
      : { duplicate: true, runId: row.run_id, duplicates: Number(row.duplicates) };
  });
}
