/**
 * The set-up a describe block shares, made before its tests and undone after them. Each
 * `use…` adds a beforeAll and an afterAll and returns what it made; what is made is known
 * only once the beforeAll has run, so it comes back as a function (or an object of them).
 *
 * Vitest runs afterAll hooks in the reverse order of their declaration: declare the
 * receivers before the engine or the servers that call them, so those stop first and
 * nothing is sent to a receiver already closed.
 */
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Db } from '../store/db.ts';
import type { TestDatabase, TestDatabaseKind } from './databases.ts';
import { startEngine, type EngineHarness } from './engine-harness.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { importFlow, startRun, startServerProcess, type ServerProcess } from './server-process.ts';

/** A real receiver on loopback (receiver.ts), closed after the block. */
export function useReceiver(options: Parameters<typeof startReceiver>[0]): () => Receiver {
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    receiver = await startReceiver(options);
  });
  afterAll(async () => {
    await receiver?.close();
  });
  return () => {
    if (!receiver) throw new Error('the receiver is not started yet');
    return receiver;
  };
}

/** An engine in the test process (engine-harness.ts) on a fresh database of one kind; closed, and the database dropped, after the block. */
export function useEngine(kind: TestDatabaseKind, env: Record<string, string> = {}): () => EngineHarness {
  let database: TestDatabase | undefined;
  let engine: EngineHarness | undefined;
  beforeAll(async () => {
    database = await kind.create();
    engine = await startEngine(database.url, env);
  });
  afterAll(async () => {
    await engine?.close();
    await database?.drop();
  });
  return () => {
    if (!engine) throw new Error('the engine is not started yet');
    return engine;
  };
}

export interface ServerProcesses {
  /** The servers' database, open in the test process to read what they wrote. */
  db(): Db;
  /** A real server process on the database, with `env` over the suite's; killed after the block if it still runs. */
  start(env?: Record<string, string>): Promise<ServerProcess>;
  /**
   * Starts a server that dies at `point` (ONCEFLOW_CRASH_AT), imports `document` into it,
   * starts one run with `input`, and returns once the process is gone.
   */
  crashDuringRun(point: string, document: unknown, input: unknown): Promise<{ flowId: string; runId: string }>;
}

/** A killed server's runs are taken over after its lease: a short one, looked for often, keeps fault tests quick. */
const FAULT_TEST_ENV = { ONCEFLOW_LEASE_MS: '800', ONCEFLOW_POLL_MS: '30' };

/** Real server processes (server-process.ts) sharing a fresh database of one kind, for tests that kill them. */
export function useServerProcesses(kind: TestDatabaseKind): ServerProcesses {
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  const processes: ServerProcess[] = [];
  beforeAll(async () => {
    database = await kind.create();
    db = await openDatabase(database.url);
  });
  afterAll(async () => {
    for (const server of processes) await server.kill();
    await db?.close();
    await database?.drop();
  });

  const servers: ServerProcesses = {
    db() {
      if (!db) throw new Error('the test database is not open yet');
      return db;
    },
    async start(env = {}) {
      if (!database) throw new Error('the test database is not made yet');
      const server = await startServerProcess({ DATABASE_URL: database.url, ...FAULT_TEST_ENV, ...env });
      processes.push(server);
      return server;
    },
    async crashDuringRun(point, document, input) {
      const crashing = await servers.start({ ONCEFLOW_CRASH_AT: point });
      const flowId = await importFlow(crashing.url, document);
      const runId = await startRun(crashing.url, flowId, input);
      await crashing.exited;
      return { flowId, runId };
    },
  };
  return servers;
}
