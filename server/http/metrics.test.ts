/**
 * /metrics over real HTTP on each database: a flow acts once through a real receiver, its
 * replay is stopped as a duplicate, deliveries are repeated and refused, and the scrape
 * says exactly that. Then who may scrape when the server is exposed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer, type RunningServer } from '../app.ts';
import { readEnv } from '../env.ts';
import { createServices } from '../services.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hookUrl, startApp, waitForRunStatus, waitUntilSettled } from '../testing/app-harness.ts';
import { request } from 'node:http';
import { createSqliteDatabase, testDatabases, type TestDatabase } from '../testing/databases.ts';
import { postJson, postRaw } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { tryClaim } from '../store/claims.ts';
import { RUN_COUNTS_SQL } from '../store/metrics.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';

/** An effect that acts, then a plain call the receiver always refuses. */
function failAfterEffectFlow(receiverUrl: string) {
  const flow = webhookEffectFlow(receiverUrl);
  return {
    ...flow,
    name: 'Effect, then a refused call',
    nodes: [...flow.nodes, { id: 'after', type: 'http.request', position: { x: 400, y: 0 }, data: {
      sideEffect: false, retry: { max: 0 }, request: { method: 'POST', url: `${receiverUrl}/refuse`, body: '{}' },
    } }],
    edges: [...flow.edges, { id: 'e2', source: 'effect', target: 'after' }],
  };
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format's sample lines (comments skipped). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name!] = value!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The one sample with this name and these labels (and no others that differ). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${url}/metrics`, { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** A GET naming the server by another Host (fetch always sends the URL's own). */
function getWithHost(url: string, host: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { ...headers, host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end();
  });
}

for (const kind of testDatabases()) {
  describe(`metrics on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let receiver: Receiver;

    beforeAll(async () => {
      database = await kind.create();
      // The worker starts in the second test, once the first has looked at a queued run.
      server = await startApp(database.url, {}, { worker: false });
      receiver = await startReceiver({ honoursKeys: true });
      receiver.behave = (call) => (call.path === '/refuse' ? { kind: 'status', status: 400 } : { kind: 'ok' });
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await database?.drop();
    });

    it('reads queue depth and the oldest queued age from the database when scraped', async () => {
      // No worker yet, so the run stays queued; it is dated back as if it had waited 90 s.
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const { runId } = await server.services.runs.start({ flowId, input: { id: 'queued' } });
      await server.services.db.run(`UPDATE runs SET created_at = ? WHERE id = ?`, [Date.now() - 90_000, runId]);
      let samples = parseMetrics((await scrape(server.url)).text);
      expect(valueOf(samples, 'onceflow_queue_depth')).toBe(1);
      expect(valueOf(samples, 'onceflow_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(90);
      expect(valueOf(samples, 'onceflow_queue_oldest_age_seconds')).toBeLessThan(120);
      expect(valueOf(samples, 'onceflow_runs', { flow: flowId, status: 'queued' })).toBe(1);

      await server.services.runs.cancel(runId);
      samples = parseMetrics((await scrape(server.url)).text);
      expect(valueOf(samples, 'onceflow_queue_depth')).toBe(0);
      expect(valueOf(samples, 'onceflow_queue_oldest_age_seconds')).toBe(0);
      expect(valueOf(samples, 'onceflow_runs', { flow: flowId, status: 'queued' })).toBeUndefined();
      expect(valueOf(samples, 'onceflow_runs', { flow: flowId, status: 'cancelled' })).toBe(1);
    });

    it('counts runs, step outcomes, deliveries and claims exactly', async () => {
      // A worker died holding a run and the claim of its side effect: both leases lapsed.
      const lapsedFlow = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const lapsed = await server.services.runs.start({ flowId: lapsedFlow.id, input: { id: 'evt_lapsed' } });
      const past = Date.now() - 60_000;
      await server.services.db.run(`UPDATE runs SET status = 'running', lease_owner = 'wrk_gone', lease_until = ?, lease_fence = 1, started_at = ? WHERE id = ?`, [past, past, lapsed.runId]);
      await server.services.db.transaction((tx) => tryClaim(tx, {
        scope: `${lapsedFlow.id}:effect`, key: 'evt_lapsed:effect', fingerprint: 'gone', request: {}, runId: lapsed.runId, nodeId: 'effect',
        leaseUntil: past, expiresAt: Date.now() + 86_400_000, now: past,
      }));
      server.services.startWorker();
      expect((await waitForRunStatus(server, lapsed.runId)).status).toBe('succeeded');
      expect(receiver.effects.get('evt_lapsed:effect')).toBe(1);

      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const url = await hookUrl(server, flowId);

      const first = await postJson(url, { id: 'evt_metrics' });
      expect(first.status).toBe(202);
      expect((await postJson(url, { id: 'evt_metrics' })).status).toBe(200);
      expect((await postJson(url, { id: 'evt_metrics' })).status).toBe(200);
      expect((await postJson(`${server.url}/hooks/nohookwiththisid`, { id: 'x' })).status).toBe(404);
      expect((await postRaw(url, '{not json')).status).toBe(400);
      const runId = first.body.runId as string;
      expect((await waitForRunStatus(server, runId)).status).toBe('succeeded');

      // The replay reaches the same key: the receiver is not called again.
      const replay = await server.services.runs.replay(runId);
      expect((await waitForRunStatus(server, replay.runId)).status).toBe('succeeded');
      expect(receiver.effects.get('evt_metrics:effect')).toBe(1);
      server.services.metrics.countAlertSent('email');

      // A run that acted, then failed at its next step; its rerun skips the step already done.
      const failing = await server.services.flows.import(failAfterEffectFlow(receiver.url));
      const failed = await server.services.runs.start({ flowId: failing.id, input: { id: 'evt_fails' } });
      expect((await waitForRunStatus(server, failed.runId)).status).toBe('failed');
      await server.services.runs.rerun(failed.runId);
      await waitUntilSettled(server, failing.id, 1);
      expect((await waitForRunStatus(server, failed.runId)).attempt).toBe(2);
      expect(receiver.effects.get('evt_fails:effect')).toBe(1);

      const answer = await scrape(server.url);
      expect(answer.status).toBe(200);
      expect(answer.type).toContain('text/plain');
      const samples = parseMetrics(answer.text);

      expect(valueOf(samples, 'onceflow_runs', { flow: flowId, flow_name: 'Webhook → effect', status: 'succeeded' })).toBe(2);
      expect(samples.filter((sample) => sample.name === 'onceflow_runs' && sample.labels.flow === flowId)).toHaveLength(1);

      expect(valueOf(samples, 'onceflow_runs', { flow: failing.id, status: 'failed' })).toBe(1);
      expect(valueOf(samples, 'onceflow_runs', { flow: lapsedFlow.id, status: 'succeeded' })).toBe(1);
      expect(valueOf(samples, 'onceflow_steps_total', { outcome: 'acted' })).toBe(3);
      expect(valueOf(samples, 'onceflow_steps_total', { outcome: 'skipped' })).toBe(1);
      expect(valueOf(samples, 'onceflow_steps_total', { outcome: 'duplicate_stopped' })).toBe(1);
      expect(valueOf(samples, 'onceflow_steps_total', { outcome: 'recovered' })).toBe(1);
      expect(valueOf(samples, 'onceflow_steps_total', { outcome: 'uncertain' })).toBe(0);

      expect(valueOf(samples, 'onceflow_webhook_deliveries_total', { result: 'accepted' })).toBe(1);
      expect(valueOf(samples, 'onceflow_webhook_deliveries_total', { result: 'duplicate' })).toBe(2);
      expect(valueOf(samples, 'onceflow_webhook_deliveries_total', { result: 'refused', reason: 'unknown_hook' })).toBe(1);
      expect(valueOf(samples, 'onceflow_webhook_deliveries_total', { result: 'refused', reason: 'bad_body' })).toBe(1);
      expect(samples.filter((sample) => sample.name === 'onceflow_webhook_deliveries_total' && sample.labels.result === 'refused')).toHaveLength(2);

      // One claim statement per side effect that ran: two won, the replay's and the taken-over
      // run's lost (the rerun skipped its own step).
      expect(valueOf(samples, 'onceflow_claim_latency_seconds_count')).toBe(4);
      expect(valueOf(samples, 'onceflow_claim_latency_seconds_bucket', { le: '+Inf' })).toBe(4);
      expect(valueOf(samples, 'onceflow_claim_latency_seconds_sum')).toBeGreaterThan(0);

      expect(valueOf(samples, 'onceflow_queue_depth')).toBe(0);
      expect(valueOf(samples, 'onceflow_queue_oldest_age_seconds')).toBe(0);
      expect(valueOf(samples, 'onceflow_lease_takeovers_total', { kind: 'run' })).toBe(1);
      expect(valueOf(samples, 'onceflow_lease_takeovers_total', { kind: 'claim' })).toBe(1);
      expect(valueOf(samples, 'onceflow_alerts_sent_total', { kind: 'email' })).toBe(1);

      // Each scrape counts runs from the partial index of live runs, never from their rows.
      if (kind.name === 'sqlite') {
        const plan = await server.services.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${RUN_COUNTS_SQL}`);
        expect(plan.map((step) => step.detail)).toContain('SCAN runs USING INDEX runs_flow_status_live_idx');
      } else {
        const rows = await server.services.db.all<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'runs_flow_status_live_idx'`);
        expect(rows[0]?.indexdef).toMatch(/\(flow_id, status\) WHERE \(test_scope IS NULL\)/);
      }
    }, 60_000);
  });
}

describe('who may scrape /metrics when the server is exposed', () => {
  const database = createSqliteDatabase();
  const metricsToken = 'scrape-token-0123456789abcdef';
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    server = await startApp(database.url, { HOST: '0.0.0.0', ONCEFLOW_ADMIN_PASSWORD: 'correct horse battery', ONCEFLOW_METRICS_TOKEN: metricsToken }, { worker: false });
    base = server.url.replace('0.0.0.0', '127.0.0.1');
  });
  afterAll(async () => {
    await server?.stop();
    await database.drop();
  });

  it('asks for a login or the metrics token, and takes the token from any Host', async () => {
    const refused = await scrape(base);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text)).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Log in first, or send the metrics token (ONCEFLOW_METRICS_TOKEN) as "Authorization: Bearer <token>".' } });
    expect((await scrape(base, { authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
    expect((await scrape(base, { authorization: `Bearer ${metricsToken}x` })).status).toBe(401);

    const allowed = await scrape(base, { authorization: `Bearer ${metricsToken}` });
    expect(allowed.status).toBe(200);
    expect(parseMetrics(allowed.text).some((sample) => sample.name === 'onceflow_queue_depth')).toBe(true);

    // The metrics token opens /metrics only, not the app.
    expect((await fetch(`${base}/trpc/flows.list`, { headers: { authorization: `Bearer ${metricsToken}` } })).status).toBe(401);

    // An admin's token works too, from a name the server answers to.
    const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'correct horse battery', token: true }) });
    const { token } = (await login.json()) as { token: string };
    expect((await scrape(base, { authorization: `Bearer ${token}` })).status).toBe(200);

    // A scraper names the server by whatever address it was given.
    expect(await getWithHost(`${base}/metrics`, 'metrics-target.internal:9100', { authorization: `Bearer ${metricsToken}` })).toBe(200);
    expect(await getWithHost(`${base}/metrics`, 'metrics-target.internal:9100', { authorization: `Bearer ${token}` })).toBe(421);
  });
});

describe('a worker without the app serves /metrics alone', () => {
  it('answers with the token only, and refuses to start exposed without one', async () => {
    const database = createSqliteDatabase();
    const settings = { DATABASE_URL: database.url, ONCEFLOW_DATA_DIR: mkdtempSync(join(tmpdir(), 'onceflow-data-')), ONCEFLOW_LOG_LEVEL: 'silent', ONCEFLOW_SANDBOX: '0' };
    const bare = await createServices(readEnv({ ...settings, HOST: '0.0.0.0' }));
    await expect(startMetricsServer(bare, 0)).rejects.toThrow('Onceflow will not serve metrics on 0.0.0.0 without a login: set ONCEFLOW_METRICS_TOKEN');
    await bare.close();

    const token = 'worker-scrape-token-0123456789';
    const services = await createServices(readEnv({ ...settings, HOST: '0.0.0.0', ONCEFLOW_METRICS_TOKEN: token }));
    const metrics = await startMetricsServer(services, 0);
    try {
      const base = metrics.url.replace('0.0.0.0', '127.0.0.1');
      services.metrics.engine.stepOutcome('acted');
      expect((await scrape(base)).status).toBe(401);
      const allowed = await scrape(base, { authorization: `Bearer ${token}` });
      expect(allowed.status).toBe(200);
      expect(valueOf(parseMetrics(allowed.text), 'onceflow_steps_total', { outcome: 'acted' })).toBe(1);
      // Nothing of the app is served here.
      expect((await fetch(`${base}/healthz`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    } finally {
      await metrics.stop();
      await services.close();
      await database.drop();
    }
  });
});
