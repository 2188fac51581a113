/** Workers announce themselves here so /healthz and `onceflow status` can say who is alive. */
import type { Sql } from './db.ts';
import { toWorker, WORKER_COLUMNS, type WorkerRow } from './rows.ts';

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
  workers: WorkerRow[];
  queueDepth: number;
  oldestQueuedAt: number | null;
  running: number;
  waiting: number;
  needsReview: number;
}

/** Workers seen since `seenSince`; queued runs (and delays due) with the oldest one's time. */
export async function queueStatus(sql: Sql, now: number, seenSince: number): Promise<QueueStatus> {
  const workers = await sql.all(`SELECT ${WORKER_COLUMNS} FROM workers WHERE seen_at >= ? ORDER BY started_at`, [seenSince]);
  // Each count reads one of the partial status indexes, never the whole table.
  const queued = await sql.get<{ n: number; oldest: number | null }>(`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM runs WHERE status = 'queued'`);
  const due = await sql.get<{ n: number; oldest: number | null }>(`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM runs WHERE status = 'waiting' AND wake_at <= ?`, [now]);
  const counted = async (status: string) => Number((await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE status = ?`, [status]))?.n ?? 0);
  const [running, waiting, needsReview] = [await counted('running'), await counted('waiting'), await counted('needs_review')];
  const oldest = [queued?.oldest, due?.oldest].filter((value): value is number => value != null).map(Number);
  return {
    workers: workers.map(toWorker),
    queueDepth: Number(queued?.n ?? 0) + Number(due?.n ?? 0),
    oldestQueuedAt: oldest.length ? Math.min(...oldest) : null,
    running,
    waiting,
    needsReview,
  };
}
