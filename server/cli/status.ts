import type { Client } from './client.ts';

/** `onceflow status`: who is working and how much is waiting. */
export async function statusCommand(client: Client, json: boolean): Promise<number> {
  const status = await client.system.status.query();
  if (json) {
    console.log(JSON.stringify(status, null, 2));
    return 0;
  }
  const age = status.oldestQueuedAt === null ? '' : ` (oldest queued ${Math.round((Date.now() - status.oldestQueuedAt) / 1000)} s ago)`;
  console.log(`Database: ${status.database}`);
  console.log(`Workers seen: ${status.workers.length}`);
  for (const worker of status.workers) console.log(`  ${worker.id} on ${worker.host}, pid ${worker.pid}, last seen ${new Date(worker.seenAt).toISOString()}`);
  console.log(`Queued: ${status.queueDepth}${age}; running ${status.running}, waiting ${status.waiting}, needing review ${status.needsReview}`);
  console.log(keepingLine(status.keeping));
  return 0;
}

/** "Keys kept 30d after their work; runs kept 180d; oldest kept run #12, 2026-06-03": what ONCEFLOW_KEY_TTL and ONCEFLOW_RETENTION say. */
export function keepingLine(keeping: { keyTtl: string; retention: string | null; oldestKeptRun: { seq: number; createdAt: number } | null }): string {
  const runs = keeping.retention ? `runs kept ${keeping.retention}` : 'runs kept forever (no retention set)';
  const oldest = keeping.oldestKeptRun
    ? `; oldest kept run #${keeping.oldestKeptRun.seq}, ${new Date(keeping.oldestKeptRun.createdAt).toISOString().slice(0, 10)}`
    : '; no runs yet';
  return `Keys kept ${keeping.keyTtl} after their work; ${runs}${oldest}`;
}
