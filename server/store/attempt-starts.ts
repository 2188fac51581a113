/** When each run's current attempt began, so a rerun's duration leaves out the wait before it. */
import { isOneOf } from './batch.ts';
import type { Sql } from './db.ts';

/**
 * The first `run.started` of each run's current attempt (a worker that resumes the
 * attempt after a crash or a wait starts it again; the attempt began with the first).
 * Runs whose current attempt has not started are left out.
 */
export async function currentAttemptStarts(sql: Sql, runIds: string[]): Promise<Map<string, number>> {
  const starts = new Map<string, number>();
  if (runIds.length === 0) return starts;
  const rows = await sql.all<{ run_id: string; started_at: number | string }>(
    `SELECT e.run_id, MIN(e.created_at) AS started_at
     FROM timeline_events e JOIN runs r ON r.id = e.run_id AND e.attempt = r.attempt
     WHERE ${isOneOf(sql.dialect, 'e.run_id')} AND e.type = 'run.started'
     GROUP BY e.run_id`,
    [runIds],
  );
  for (const row of rows) starts.set(row.run_id, Number(row.started_at));
  return starts;
}
