/**
 * `onceflow runs cancel` against a real server process over HTTP, on each database: a run
 * cancelled while its slow side-effect step acts says so, the step is still recorded, the
 * step after it never runs, and cancelling it again is refused in a sentence.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServerProcess, type ServerProcess } from '../testing/server-process.ts';
import { until } from '../testing/wait-for.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function onceflow(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ONCEFLOW_TOKEN: '', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function step(id: string, label: string, url: string) {
  return {
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: { label, sideEffect: true, key: `{{ trigger.body.order }}:${id}`, receiverKeyHeader: 'Idempotency-Key', timeoutMs: 10_000,
      request: { method: 'POST', url: `${url}/${id}`, headers: { 'content-type': 'application/json' }, body: '{}' } },
  };
}

/** A receiver that holds every answer until the test lets go: slow for exactly as long as needed. */
async function startHeldReceiver() {
  let letGo: () => void = () => {};
  const released = new Promise<void>((resolve) => (letGo = resolve));
  let arrived: () => void = () => {};
  const firstCall = new Promise<void>((resolve) => (arrived = resolve));
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    paths.push(request.url ?? '');
    arrived();
    request.resume();
    void released.then(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"inv_1"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, firstCall, letGo,
    close: () => new Promise<void>((resolve) => { letGo(); server.close(() => resolve()); }),
  };
}

for (const kind of testDatabases()) {
  describe(`onceflow runs cancel on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let receiver: Awaited<ReturnType<typeof startHeldReceiver>>;
    let env: Record<string, string>;

    beforeAll(async () => {
      database = await kind.create();
      server = await startServerProcess({ DATABASE_URL: database.url });
      receiver = await startHeldReceiver();
      env = { ONCEFLOW_URL: server.url };
    });
    afterAll(async () => {
      await server?.kill();
      await receiver?.close();
      await database?.drop();
    });

    it('cancels a run whose slow step is acting: the step is recorded, the next never runs', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'onceflow-cancel-')), 'flow.json');
      writeFileSync(file, JSON.stringify({
        format: 'onceflow/v1', name: 'Invoice then notify', sampleInput: { order: '1' },
        nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }, step('invoice', 'Create invoice', receiver.url), step('notify', 'Notify team', receiver.url)],
        edges: [{ id: 'e1', source: 'start', target: 'invoice' }, { id: 'e2', source: 'invoice', target: 'notify' }],
      }));
      const flowId = (await onceflow(['import', file], env)).stdout.trim().split('\n')[0]!;
      const runId = (await onceflow(['run', flowId, '--input', '{"order":"CLI-1"}'], env)).stdout.trim();
      await receiver.firstCall;

      const cancelled = await onceflow(['runs', 'cancel', runId], env);
      expect(cancelled.stderr).toBe('');
      expect(cancelled.code).toBe(0);
      expect(cancelled.stdout.trim()).toMatch(/^Run #\d+ cancelled\. “Create invoice” was acting; it will finish and be recorded, and nothing after it starts\. 1 step will not run\.$/);
      // The receiver answers only now, after the cancel: the worker still records the answer.
      receiver.letGo();

      const shown = await until('the acting step to be recorded', async () => {
        const view = JSON.parse((await onceflow(['runs', 'show', runId, '--json'], env)).stdout) as { run: { status: string }; steps: { nodeId: string; status: string }[]; timeline: { type: string; data: { finished?: string } | null }[] };
        return view.timeline.some((event) => event.data?.finished === 'succeeded') ? view : undefined;
      });
      expect(shown.run.status).toBe('cancelled');
      expect(shown.steps.find((row) => row.nodeId === 'invoice')?.status).toBe('succeeded');
      expect(shown.timeline.map((event) => event.type)).not.toContain('run.succeeded');
      expect(receiver.paths).toEqual(['/invoice']);

      const again = await onceflow(['runs', 'cancel', runId], env);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/is already cancelled, so there is nothing to cancel\./);
      expect(again.stderr).not.toContain('{');
    });
  });
}
