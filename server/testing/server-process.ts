/**
 * A real Onceflow server process for fault tests: started in its own process group so a
 * SIGKILL takes it and its children down together, like a machine losing power.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The Node flags `npm start` and the `onceflow` command run the server with (bin/onceflow.mjs says why). */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Processes sharing one database must share its secret key: one data folder per database. */
const dataDirs = new Map<string, string>();
function dataDirFor(databaseUrl: string | undefined): string {
  const id = databaseUrl ?? '';
  let dir = dataDirs.get(id);
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'onceflow-data-'));
    dataDirs.set(id, dir);
  }
  return dir;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  signal(signal: NodeJS.Signals): void;
  kill(): Promise<void>;
}

export async function startServerProcess(env: Record<string, string>, args: string[] = ['start']): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'bin/onceflow.mjs', ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOST: '127.0.0.1', ONCEFLOW_LOG_LEVEL: 'warn', ONCEFLOW_SANDBOX_SMTP_PORT: '0', ONCEFLOW_DATA_DIR: env.ONCEFLOW_DATA_DIR ?? dataDirFor(env.DATABASE_URL), ...env, PORT: String(port) },
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    url,
    child,
    output: () => output,
    exited,
    signal(signal) {
      try { process.kill(-child.pid!, signal); } catch { /* already gone */ }
    },
    async kill() {
      server.signal('SIGKILL');
      await exited;
    },
  };
  if (args[0] === 'start') await waitForHealth(url, exited, () => output);
  return server;
}

async function waitForHealth(url: string, exited: Promise<number | null>, output: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`server exited before it was healthy:\n${output()}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  throw new Error(`server did not become healthy:\n${output()}`);
}

/** Calls a tRPC procedure of a running server. */
export async function trpc<T = unknown>(url: string, path: string, input: unknown, kind: 'query' | 'mutation' = 'mutation'): Promise<T> {
  const response =
    kind === 'query'
      ? await fetch(`${url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`)
      : await fetch(`${url}/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!response.ok || !body.result) throw new Error(`${path} failed: ${JSON.stringify(body.error)}`);
  return body.result.data;
}

/** Imports a flow document into a running server; the flow's id. */
export async function importFlow(url: string, document: unknown): Promise<string> {
  return (await trpc<{ id: string }>(url, 'flows.import', { document })).id;
}

/** Starts a run of a flow on a running server; the run's id. */
export async function startRun(url: string, flowId: string, input: unknown): Promise<string> {
  return (await trpc<{ runId: string }>(url, 'runs.start', { flowId, input })).runId;
}
