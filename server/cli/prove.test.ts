/**
 * `onceflow prove` against a real server process over HTTP: a gallery template is proven
 * (exit 0, progress on stderr, a sentence per check and per step, the report with --json),
 * a flow whose key is a constant is not (exit 1, the failing check named in words), and an
 * unknown flow is refused in a sentence.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTemplate } from '../gallery/gallery.ts';
import { PROOF_CHECKS, type ProofReport } from '../engine/test-mode/proof-report.ts';
import { createSqliteDatabase, type TestDatabase } from '../testing/databases.ts';
import { startServerProcess, type ServerProcess } from '../testing/server-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function onceflow(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ONCEFLOW_TOKEN: '', ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('onceflow prove', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createSqliteDatabase();
    server = await startServerProcess({ DATABASE_URL: database.url });
    env = { ONCEFLOW_URL: server.url };
  });
  afterAll(async () => {
    await server?.kill();
    await database?.drop();
  });

  async function importDocument(document: unknown): Promise<string> {
    const file = join(mkdtempSync(join(tmpdir(), 'onceflow-prove-')), 'flow.json');
    writeFileSync(file, JSON.stringify(document));
    const imported = await onceflow(['import', file], env);
    expect(imported.code).toBe(0);
    return imported.stdout.trim().split('\n')[0]!;
  }

  it('proves a gallery template: every check passes, exit 0, progress on stderr', { timeout: 120_000 }, async () => {
    const flowId = await importDocument(useTemplate('order-paid-invoice-receipt', server.url));
    const proved = await onceflow(['prove', flowId], env);
    expect(proved.stderr).not.toContain('{');
    expect(proved.code).toBe(0);
    expect(proved.stdout).toMatch(/^Proven: “Order paid → invoice → receipt email” with the sample “.+” passed every check \(5\)\./);
    expect(proved.stdout).toMatch(/^Passed — Twice in a row: .+/m);
    expect(proved.stdout).toMatch(/^Passed — Ten at once: .+/m);
    expect(proved.stdout).toMatch(/^ {2}✓ “Create invoice” acted once.+/m);
    expect(proved.stdout).not.toContain('FAILED');
    expect(proved.stdout).toContain(`${server.url}/flows/${flowId}/proofs/proof`);
    expect(proved.stderr).toMatch(/^Checking: Twice in a row… \(1 of 5\)$/m);
    expect(proved.stderr).toMatch(/^Checking: Ten at once… \(2 of 5\)$/m);
    expect(proved.stderr).toMatch(/^ {2}✓ Ten at once passed$/m);
    expect(proved.stderr.match(/^Checking: /gm)).toHaveLength(5);
    expect(proved.stderr.match(/^ {2}✓ .+ passed$/gm)).toHaveLength(5);

    const json = await onceflow(['prove', flowId, '--json'], env);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as ProofReport;
    expect(report.status).toBe('passed');
    expect(report.checks.map((check) => check.check)).toEqual([...PROOF_CHECKS]);
    expect(report.checks.every((check) => check.passed)).toBe(true);
    expect(report.checks.find((check) => check.check === 'twice')!.runIds.length).toBeGreaterThan(0);
  });

  it('does not prove a flow whose POST is not marked as a side effect: exit 1, the check named', { timeout: 120_000 }, async () => {
    const template = useTemplate('order-paid-invoice-receipt', server.url);
    const unmarked = {
      ...template,
      name: 'Unmarked POST',
      nodes: template.nodes.map((node) => {
        if (node.type !== 'http.request') return node;
        const { key: _key, ...data } = node.data as Record<string, unknown>;
        return { ...node, data: { ...data, sideEffect: false } };
      }),
    };
    const flowId = await importDocument(unmarked);
    const proved = await onceflow(['prove', flowId], env);
    expect(proved.code).toBe(1);
    expect(proved.stdout).toMatch(/^Not proven: “Unmarked POST” with the sample “.+” failed \d of 5 checks\./);
    expect(proved.stdout).toMatch(/^FAILED — Keys checked on the samples: .+/m);
    expect(proved.stdout).toMatch(/^ {2}✗ .*“Create invoice”.+/m);
  });

  it('refuses an unknown flow in a sentence', async () => {
    const proved = await onceflow(['prove', 'flow_nope'], env);
    expect(proved.code).not.toBe(0);
    expect(proved.stderr).toMatch(/flow_nope/);
    expect(proved.stderr).not.toContain('{');
    expect(proved.stdout).toBe('');
  });
});
