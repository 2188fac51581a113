/**
 * `onceflow recover` and `onceflow operations show` against a real server process with a
 * password, and a real receiver: three runs fail on v1, v2 fixes the charge; without
 * --yes the command previews and starts nothing; with --yes it recovers them; the report
 * (text, JSON, and the CSV download behind the login) matches the receiver's ledger.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../testing/databases.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { startServerProcess, type ServerProcess } from '../testing/server-process.ts';
import { until } from '../testing/wait-for.ts';
import { parseTime, recoveryRequest } from './recover.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PASSWORD = 'correct horse battery staple';

function onceflow(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end('');
  });
}

function orderFlow(receiverUrl: string, chargePath: string) {
  const effect = (id: string, label: string, path: string) => ({
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: {
      label, sideEffect: true, key: `{{ trigger.body.order }}:${id}`, retry: { max: 0 },
      request: { method: 'POST', url: `${receiverUrl}${path}`, headers: { 'content-type': 'application/json' }, body: `{"ref": "{{ trigger.body.order }}:${id}"}` },
    },
  });
  return {
    format: 'onceflow/v1', name: 'Invoice and charge', sampleInput: { order: '1' },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Order placed' } },
      effect('invoice', 'Create invoice', '/invoices'),
      effect('charge', 'Charge the card', chargePath),
    ],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }, { id: 'e2', source: 'invoice', target: 'charge' }],
  };
}

describe('reading recovery choices from the command line', () => {
  it('takes ISO times and how long ago, and refuses the rest in a sentence', () => {
    expect(parseTime('2026-11-30T14:00:00Z', 'from')).toBe(Date.UTC(2026, 10, 30, 14));
    expect(parseTime('6h', 'from', 10 * 3_600_000)).toBe(4 * 3_600_000);
    expect(() => parseTime('yesterday-ish', 'from')).toThrow('--from "yesterday-ish" is not a time: give one like 2026-11-30T14:00Z, or how long ago, like 6h or 2d.');
    expect(recoveryRequest({ status: 'failed,needs_review', replay: true, yes: false, json: false })).toMatchObject({ statuses: ['failed', 'needs_review'], mode: 'replay', version: 'latest', triggerKinds: ['manual', 'webhook', 'schedule'] });
    expect(() => recoveryRequest({ status: 'broken', replay: false, yes: false, json: false })).toThrow('--status takes failed, needs_review, cancelled, succeeded (several with commas); "broken" is not one.');
  });
});

describe('onceflow recover and operations show', () => {
  const database = createSqliteDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-cli-recover-'));
  let server: ServerProcess;
  let receiver: Receiver;
  let env: Record<string, string>;
  let token: string;

  beforeAll(async () => {
    server = await startServerProcess({ DATABASE_URL: database.url, ONCEFLOW_ADMIN_PASSWORD: PASSWORD });
    receiver = await startReceiver({ honoursKeys: false });
    receiver.behave = (call) => (call.path === '/broken' ? { kind: 'status', status: 422 } : { kind: 'ok' });
    const login = await fetch(`${server.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD, token: true }) });
    token = ((await login.json()) as { token: string }).token;
    env = { ONCEFLOW_URL: server.url, ONCEFLOW_TOKEN: token };
  });
  afterAll(async () => {
    await server?.kill();
    await receiver?.close();
    await database.drop();
  });

  it('previews without --yes, recovers with it, and reports what the receiver saw', async () => {
    writeFileSync(join(dir, 'v1.json'), JSON.stringify(orderFlow(receiver.url, '/broken')));
    writeFileSync(join(dir, 'v2.json'), JSON.stringify(orderFlow(receiver.url, '/charges')));
    const flowId = (await onceflow(['import', join(dir, 'v1.json')], env)).stdout.trim().split('\n')[0]!;
    for (const order of ['A', 'B', 'C']) expect((await onceflow(['run', flowId, '--input', JSON.stringify({ order }), '--wait'], env)).code).toBe(2);
    expect((await onceflow(['import', join(dir, 'v2.json'), '--flow', flowId], env)).code).toBe(0);

    const preview = await onceflow(['recover', '--flow', flowId, '--from', '1h', '--status', 'failed'], env);
    expect(preview.stdout).toContain('3 runs: 0 steps skipped, 3 duplicates stopped, “Charge the card” will act 3 times.');
    expect(preview.stdout).toContain('Nothing started. Run the same command with --yes to start it.');
    expect(receiver.calls.filter((call) => call.path === '/charges')).toHaveLength(0);

    const started = await onceflow(['recover', '--flow', flowId, '--from', '1h', '--status', 'failed', '--name', 'Card outage', '--yes', '--json'], env);
    expect(started.code).toBe(0);
    const operation = JSON.parse(started.stdout) as { id: string; status: string; done: number; total: number; name: string };
    expect(operation).toMatchObject({ status: 'finished', done: 3, total: 3, name: 'Card outage' });

    const report = await until('the three runs finished', async () => {
      const shown = await onceflow(['operations', 'show', operation.id, '--json'], env);
      const parsed = JSON.parse(shown.stdout) as { totals: { settled: number; acted: number; duplicates: number }; steps: { nodeId: string; acted: number; duplicates: number }[] };
      return parsed.totals.settled === 3 && parsed;
    });
    const charges = receiver.calls.filter((call) => call.path === '/charges').length;
    expect(charges).toBe(3);
    expect(report.steps.find((step) => step.nodeId === 'charge')).toMatchObject({ acted: charges, duplicates: 0 });
    expect(report.steps.find((step) => step.nodeId === 'invoice')).toMatchObject({ acted: 0, duplicates: 3 });
    expect(receiver.calls.filter((call) => call.path === '/invoices')).toHaveLength(3);

    const text = await onceflow(['operations', 'show', operation.id], env);
    expect(text.stdout).toContain(`Card outage (${operation.id}): finished, 3 of 3 runs handled.`);
    expect(text.stdout).toContain('Charge the card (charge): acted 3, duplicates stopped 0');

    const csvUrl = `${server.url}/api/operations/${operation.id}/report.csv`;
    expect((await fetch(csvUrl)).status).toBe(401);
    const csv = await fetch(csvUrl, { headers: { authorization: `Bearer ${token}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('run_number,run_id,outcome,work_run_number,work_run_id,status,acted,duplicates_stopped,skipped,uncertain,note');
    expect(lines.slice(1).map((line) => line.split(',').slice(2, 10).join(','))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^queued,\d+,run_\w+,succeeded,1,1,0,0$/)]),
    );
    expect(lines).toHaveLength(4);
    expect((await fetch(`${server.url}/api/operations/nope/report.csv`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
  }, 120_000);
});
