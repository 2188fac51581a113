/** The whole server (HTTP, tRPC, webhooks, embedded worker) in the test process. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type RunningServer, type ServerOptions } from '../app.ts';
import { readEnv } from '../env.ts';
import type { RunStatus } from '../engine/types.ts';
import { SETTLED_ON_ITS_OWN, untilRunStatus } from './wait-for.ts';

export async function startApp(databaseUrl: string, env: Record<string, string> = {}, options: Omit<ServerOptions, 'env'> = {}): Promise<RunningServer> {
  return createServer({
    ...options,
    env: readEnv({ DATABASE_URL: databaseUrl, ONCEFLOW_DATA_DIR: mkdtempSync(join(tmpdir(), 'onceflow-data-')), PORT: '0', ONCEFLOW_SANDBOX_SMTP_PORT: '0', ONCEFLOW_POLL_MS: '20', ONCEFLOW_LEASE_MS: '2000', ONCEFLOW_LOG_LEVEL: 'silent', ...env }),
  }).start();
}

export async function hookUrl(server: RunningServer, flowId: string, nodeId = 'hook'): Promise<string> {
  const trigger = (await server.services.flows.get(flowId)).triggers.find((candidate) => candidate.nodeId === nodeId);
  if (!trigger) throw new Error(`flow ${flowId} has no trigger ${nodeId}`);
  return `${server.url}/hooks/${trigger.hookId}`;
}

export async function waitUntilSettled(server: RunningServer, flowId: string, expected: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await server.services.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM runs WHERE flow_id = ? AND status IN ('succeeded', 'failed', 'needs_review', 'cancelled')`, [flowId]);
    if (Number(row?.n) >= expected) return;
    if (Date.now() > deadline) throw new Error(`only ${row?.n} of ${expected} runs settled`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function waitForRunStatus(server: RunningServer, runId: string, statuses: RunStatus[] = SETTLED_ON_ITS_OWN, timeoutMs = 20_000) {
  return untilRunStatus(server.services.db, runId, statuses, { timeoutMs, everyMs: 20 });
}
