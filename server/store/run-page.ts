/**
 * Reads for one run's page whose answers stay small however long the timeline grows:
 * a few rows per step instead of every event, and the tail of the timeline after an id.
 */
import { isOneOf, perDialect } from './batch.ts';
import type { Sql } from './db.ts';
import { EVENT_COLUMNS, toEvent } from './rows.ts';
import type { TimelineEvent } from './types.ts';

/** What a step's own events say, for steps whose checkpoint does not say it all. */
export interface StepTrace {
  nodeId: string;
  /** How many times the step began. */
  started: number;
  /** Its latest event. */
  last: TimelineEvent;
  /** Its latest failure or scheduled retry, if any. */
  failure: TimelineEvent | null;
  /** Its latest event that names an idempotency key, if any. */
  keyed: TimelineEvent | null;
}

/*
 * At most three rows per step: its latest event, its latest failure and its latest event
 * naming a key. Each window partitions by whether a row is of that kind, so rank 1 in the
 * "is of that kind" partition is the latest of it.
 */
const stepTraces = (only = '') => `
  SELECT ${EVENT_COLUMNS}, started, place, failure_place, key_place FROM (
    SELECT ${EVENT_COLUMNS},
      SUM(CASE WHEN type = 'step.started' THEN 1 ELSE 0 END) OVER (PARTITION BY node_id) AS started,
      ROW_NUMBER() OVER (PARTITION BY node_id ORDER BY id DESC) AS place,
      CASE WHEN type IN ('step.failed', 'step.retry_scheduled')
        THEN ROW_NUMBER() OVER (PARTITION BY node_id, type IN ('step.failed', 'step.retry_scheduled') ORDER BY id DESC) END AS failure_place,
      CASE WHEN data LIKE '%"key":"%'
        THEN ROW_NUMBER() OVER (PARTITION BY node_id, data LIKE '%"key":"%' ORDER BY id DESC) END AS key_place
    FROM timeline_events WHERE run_id = ? AND node_id IS NOT NULL${only}
  ) ranked
  WHERE place = 1 OR failure_place = 1 OR key_place = 1`;

const STEP_TRACES = stepTraces();
const TRACES_OF_STEPS = perDialect((dialect) => stepTraces(` AND ${isOneOf(dialect, 'node_id')}`));

/** Every step's trace; or, given `nodeIds`, only theirs (one page of a long loop's items). */
export async function readStepTraces(sql: Sql, runId: string, nodeIds?: readonly string[]): Promise<StepTrace[]> {
  if (nodeIds?.length === 0) return [];
  const rows = nodeIds ? await sql.all(TRACES_OF_STEPS[sql.dialect], [runId, nodeIds]) : await sql.all(STEP_TRACES, [runId]);
  const traces = new Map<string, StepTrace>();
  for (const row of rows) {
    const event = toEvent(row);
    const nodeId = event.nodeId!;
    let trace = traces.get(nodeId);
    if (!trace) {
      trace = { nodeId, started: Number(row.started), last: event, failure: null, keyed: null };
      traces.set(nodeId, trace);
    }
    if (Number(row.place) === 1) trace.last = event;
    if (Number(row.failure_place) === 1) trace.failure = event;
    if (Number(row.key_place) === 1 && typeof event.data?.key === 'string') trace.keyed = event;
  }
  return [...traces.values()];
}

/** The timeline events after `afterId`, oldest first. */
export async function eventsAfter(sql: Sql, runId: string, afterId: number, limit: number): Promise<TimelineEvent[]> {
  const rows = await sql.all(`SELECT ${EVENT_COLUMNS} FROM timeline_events WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?`, [runId, afterId, limit]);
  return rows.map(toEvent);
}
