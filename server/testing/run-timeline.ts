/** A run's timeline as its page shows it: the stored events and its event's repeats (store/inbound-repeats.ts), by time. */
import { mergeByTime } from '../../core/timeline-merge.ts';
import type { Sql } from '../store/db.ts';
import { readRunRepeats } from '../store/inbound-repeats.ts';
import { getRun } from '../store/runs.ts';
import { listEvents } from '../store/timeline.ts';
import type { TimelineEvent } from '../store/types.ts';

export async function runTimeline(sql: Sql, runId: string): Promise<TimelineEvent[]> {
  const run = await getRun(sql, runId);
  const [events, repeats] = await Promise.all([listEvents(sql, runId), run ? readRunRepeats(sql, run) : undefined]);
  return mergeByTime(events, repeats?.events ?? []);
}

/** The trigger row that ties a store test's deliveries (hook_1) to its flow's trigger step (`hook` of flow_1). */
export const TEST_TRIGGER = `INSERT INTO triggers (hook_id, flow_id, node_id, kind, created_at) VALUES ('hook_1', 'flow_1', 'hook', 'trigger.webhook', 1) ON CONFLICT DO NOTHING`;
