/** Workers announce themselves here so /healthz and `onceflow status` can say who is alive. */
import type { Sql } from './db.ts';

export async function announceWorker(sql: Sql, worker: { id: string; host: string; pid: number; now: number }): Promise<void> {
  await sql.run(
    `INSERT INTO workers (id, host, pid, started_at, seen_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`,
    [worker.id, worker.host, worker.pid, worker.now, worker.now],
  );
}

export async function retireWorker(sql: Sql, id: string): Promise<void> {
  await sql.run(`DELETE FROM workers WHERE id = ?`, [id]);
}

export interface QueueStatus {
  workers: { id: string; host: string; pid: number; startedAt: number; seenAt: number }[];
  queueDepth: number;
  oldestQueuedAt: number | null;
  running: number;
  waiting: number;
  needsReview: number;
}

/** Workers seen since `seenSince`; queued runs (and delays due) with the oldest one's time. */
export async function queueStatus(sql: Sql, now: number, seenSince: number): Promise<QueueStatus> {
  const workers = await sql.all<Record<string, unknown>>(`SELECT id, host, pid, started_at, seen_at FROM workers WHERE seen_at >= ? ORDER BY started_at`, [seenSince]);
  const queued = await sql.get<{ n: number; oldest: number | null }>(
    `SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM runs WHERE status = 'queued' OR (status = 'waiting' AND wake_at <= ?)`, [now]);
  const counts = await sql.all<{ status: string; n: number }>(`SELECT status, COUNT(*) AS n FROM runs WHERE status IN ('running', 'waiting', 'needs_review') GROUP BY status`);
  const count = (status: string) => Number(counts.find((row) => row.status === status)?.n ?? 0);
  return {
    workers: workers.map((row) => ({ id: row.id as string, host: row.host as string, pid: Number(row.pid), startedAt: Number(row.started_at), seenAt: Number(row.seen_at) })),
    queueDepth: Number(queued?.n ?? 0),
    oldestQueuedAt: queued?.oldest == null ? null : Number(queued.oldest),
    running: count('running'),
    waiting: count('waiting'),
    needsReview: count('needs_review'),
  };
}
