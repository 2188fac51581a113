/** Counts over runs and their timelines, for lists, the flows page and status checks. */
import { isOneOf } from './batch.ts';
import type { Sql } from './db.ts';
import type { RunStatus } from './types.ts';

/** How many duplicates were stopped and steps skipped, per run. */
export async function stepCounts(sql: Sql, runIds: string[]): Promise<Map<string, { duplicates: number; skipped: number }>> {
  const counts = new Map<string, { duplicates: number; skipped: number }>();
  if (runIds.length === 0) return counts;
  const rows = await sql.all<{ run_id: string; type: string; n: number }>(
    `SELECT run_id, type, COUNT(*) AS n FROM timeline_events
     WHERE ${isOneOf(sql.dialect, 'run_id')} AND type IN ('step.duplicate', 'step.skipped')
     GROUP BY run_id, type`,
    [runIds],
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

/** Per flow: live runs and failures since `dayStart`, duplicates stopped since `weekStart` (tests left out). */
export async function flowRunStats(sql: Sql, dayStart: number, weekStart: number): Promise<Map<string, FlowRunStats>> {
  const stats = new Map<string, FlowRunStats>();
  const entry = (flowId: string) => {
    let value = stats.get(flowId);
    if (!value) stats.set(flowId, (value = { runsToday: 0, failuresToday: 0, duplicatesThisWeek: 0 }));
    return value;
  };
  const runs = await sql.all<{ flow_id: string; runs: number; failures: number }>(
    `SELECT flow_id, COUNT(*) AS runs, SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failures
     FROM runs WHERE created_at >= ? AND test_scope IS NULL GROUP BY flow_id`,
    [dayStart],
  );
  for (const row of runs) Object.assign(entry(row.flow_id), { runsToday: Number(row.runs), failuresToday: Number(row.failures) });
  const duplicates = await sql.all<{ flow_id: string; n: number }>(
    `SELECT r.flow_id, COUNT(*) AS n FROM timeline_events e JOIN runs r ON r.id = e.run_id
     WHERE e.type = 'step.duplicate' AND e.created_at >= ? AND r.test_scope IS NULL GROUP BY r.flow_id`,
    [weekStart],
  );
  for (const row of duplicates) entry(row.flow_id).duplicatesThisWeek = Number(row.n);
  return stats;
}

/** How many runs are in each status (statuses no run is in are left out). */
export async function runStatusCounts(sql: Sql): Promise<Partial<Record<RunStatus, number>>> {
  const rows = await sql.all<{ status: RunStatus; n: number }>(`SELECT status, COUNT(*) AS n FROM runs GROUP BY status`);
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}
