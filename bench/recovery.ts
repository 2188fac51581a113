/**
 * A recovery of 10,000 failed runs through the real server (no worker, so the figures are
 * the recovery's own): how long the one summed preview takes, how many runs per second the
 * operation queues, and the p99 of other API requests (the runs list, over HTTP) while it
 * previews and queues. The failed runs are written straight to the tables, as the engine
 * leaves them: the invoice sent (checkpoint and claim), the notification refused; 1% of
 * the invoice claims are missing, as if swept after their time to live.
 */
import { performance } from 'node:perf_hooks';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '../server/app.ts';
import { readEnv } from '../server/env.ts';
import { newId } from '../server/ids.ts';
import type { Services } from '../server/services.ts';
import { batchRows, perDialect } from '../server/store/batch.ts';
import { flowStore } from '../server/store/flows.ts';
import { insertRun } from '../server/store/runs.ts';
import { insertEvents, upsertCheckpoints } from '../server/store/timeline.ts';
import type { CheckpointRow, TimelineEvent } from '../server/engine/types.ts';
import { round, summarize } from './stats.ts';

export interface RecoveryBenchResult {
  database: string;
  runs: number;
  previewSeconds: number;
  runsPerSecondQueued: number;
  apiRequests: number;
  apiP50Ms: number;
  apiP99Ms: number;
  /** The same requests for 3 s before the recovery, on the same machine and database. */
  baselineP99Ms: number;
}

function flow(url: string) {
  const step = (id: string, label: string) => ({
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: { label, sideEffect: true, key: `{{ trigger.body.order }}:${id}`, request: { method: 'POST', url: `${url}/${id}`, body: '{}' } },
  });
  return {
    format: 'onceflow/v1', name: 'Order paid',
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'prep', type: 'transform', position: { x: 0, y: 0 }, data: { label: 'Prepare', outputs: { order: '{{ trigger.body.order }}' } } },
      step('invoice', 'Create invoice'),
      step('notify', 'Email the customer'),
    ],
    edges: [{ id: 'e1', source: 'start', target: 'prep' }, { id: 'e2', source: 'prep', target: 'invoice' }, { id: 'e3', source: 'invoice', target: 'notify' }],
  };
}

const INSERT_CLAIMS = perDialect((dialect) =>
  `INSERT INTO claims (scope, key, status, fingerprint, request, owner_run_id, owner_node_id, fence, lease_until, expires_at, created_at, updated_at)
   SELECT scope, key, 'succeeded', 'bench', '{}', owner_run_id, 'invoice', 1, 0, expires_at, created_at, created_at
   FROM ${batchRows(dialect, [['scope', 'text'], ['key', 'text'], ['owner_run_id', 'text'], ['expires_at', 'bigint'], ['created_at', 'bigint']])}`);

export async function seedFailedRuns(services: Services, flowId: string, count: number, createdAt: number): Promise<void> {
  const { db } = services;
  const version = await flowStore(db).latestVersion(flowId);
  for (let start = 0; start < count; start += 1000) {
    await db.transaction(async (tx) => {
      const ids: string[] = [];
      const checkpoints: CheckpointRow[] = [];
      const events: TimelineEvent[] = [];
      const claims: unknown[][] = [];
      for (let index = start; index < Math.min(count, start + 1000); index++) {
        const id = newId('run');
        const order = `O-${index}`;
        ids.push(id);
        await insertRun(tx, { id, flowId, versionId: version!.id, input: { order }, triggerKind: 'manual', triggerNode: 'start', eventId: null, replayOf: null, createdAt: createdAt + index, createdBy: 'admin' });
        checkpoints.push(
          { runId: id, nodeId: 'prep', status: 'succeeded', output: { order }, keyScope: null, key: null, attempt: 1, createdAt },
          { runId: id, nodeId: 'invoice', status: 'succeeded', output: { status: 200 }, keyScope: `${flowId}:invoice`, key: `${order}:invoice`, attempt: 1, createdAt },
        );
        for (const nodeId of ['prep', 'invoice', 'notify']) events.push({ runId: id, type: 'step.started', nodeId, attempt: 1, data: {}, createdAt });
        events.push({ runId: id, type: 'step.failed', nodeId: 'notify', attempt: 1, data: { error: 'refused' }, createdAt });
        if (index % 100 !== 0) claims.push([`${flowId}:invoice`, `${order}:invoice`, id, createdAt + 30 * 86_400_000, createdAt]);
      }
      await tx.run(`UPDATE runs SET status = 'failed', finished_at = ? WHERE flow_id = ? AND status = 'queued'`, [createdAt, flowId]);
      await upsertCheckpoints(tx, checkpoints);
      await insertEvents(tx, events);
      await tx.run(INSERT_CLAIMS[tx.dialect], [claims]);
    });
  }
}

/** Asks for the first page of runs over HTTP again and again until `done`, timing each answer. */
async function measureApi(url: string, done: () => boolean): Promise<number[]> {
  const samples: number[] = [];
  const input = encodeURIComponent(JSON.stringify({ limit: 50 }));
  while (!done()) {
    const started = performance.now();
    const response = await fetch(`${url}/trpc/runs.list?input=${input}`);
    await response.text();
    if (!response.ok) throw new Error(`runs.list answered ${response.status}`);
    samples.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return samples;
}

export async function benchRecovery(databaseUrl: string, label: string, count: number): Promise<RecoveryBenchResult> {
  const server = await createServer({
    env: readEnv({ DATABASE_URL: databaseUrl, PORT: '0', ONCEFLOW_DATA_DIR: mkdtempSync(join(tmpdir(), 'onceflow-bench-')), ONCEFLOW_SANDBOX: 'false', ONCEFLOW_LOG_LEVEL: 'error' }),
    worker: false,
  }).start();
  try {
    const { services } = server;
    const { id: flowId } = await services.flows.import(flow('http://127.0.0.1:9'));
    const createdAt = Date.now() - 3_600_000;
    await seedFailedRuns(services, flowId, count, createdAt);
    // The fix, published as v2: the rerun moves to it, so the sent invoices stop as duplicates.
    await services.flows.saveDraft(flowId, flow('http://127.0.0.1:10'));
    await services.flows.publish(flowId, 'admin');
    const request = { flowId, from: createdAt, to: createdAt + count, statuses: ['failed' as const], triggerKinds: ['manual' as const], mode: 'rerun' as const, version: 'latest' as const };

    const previewStarted = performance.now();
    const preview = await services.recoveries.preview(request);
    const previewSeconds = (performance.now() - previewStarted) / 1000;
    if (preview.runs !== count || preview.counts.deduplicate !== count - count / 100 || preview.expired !== count / 100) throw new Error(`unexpected preview: ${JSON.stringify(preview.counts)}, expired ${preview.expired}`);

    // Other requests with nothing else going on, to read the figure under load beside.
    const baselineEnds = Date.now() + 3000;
    const baseline = summarize(await measureApi(server.url, () => Date.now() > baselineEnds));
    let finished = false;
    const api = measureApi(server.url, () => finished);
    const operation = await services.recoveries.start(request, 'bench');
    const queueStarted = performance.now();
    for (;;) {
      const now = await services.recoveries.get(operation.id);
      if (now.status !== 'running') {
        if (now.status !== 'finished' || now.done !== count) throw new Error(`the recovery ended ${now.status} at ${now.done} of ${count}`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const queueSeconds = (performance.now() - queueStarted) / 1000;
    finished = true;
    const latency = summarize(await api);
    return {
      database: label, runs: count, previewSeconds: round(previewSeconds), runsPerSecondQueued: Math.round(count / queueSeconds),
      apiRequests: latency.n, apiP50Ms: round(latency.p50, 1), apiP99Ms: round(latency.p99, 1), baselineP99Ms: round(baseline.p99, 1),
    };
  } finally {
    await server.stop();
  }
}
