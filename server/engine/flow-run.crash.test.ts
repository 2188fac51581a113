/**
 * A Run flow step killed by SIGKILL in its one crash window, on each database: right
 * after the transaction that won the key and inserted the child, before the parent parked.
 * After a restart the parent finishes with the one child its key claimed; the child's
 * receiver sees one effect. (Killed after the step's record, the restart skips the
 * checkpoint like any step's: runs.crash.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceFlow } from '../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { parentFlow } from '../testing/flow-run-flows.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { startServerProcess, trpc, type ServerProcess } from '../testing/server-process.ts';
import { until } from '../testing/wait-for.ts';
import { childRunsOf } from '../store/child-runs.ts';
import { openDatabase, type Db } from '../store/db.ts';
import { getRun } from '../store/runs.ts';

for (const kind of testDatabases()) {
  describe(`Run flow crash windows on ${kind.name}`, () => {
    let database: TestDatabase;
    let db: Db;
    let honouring: Receiver;
    const processes: ServerProcess[] = [];

    const start = async (env: Record<string, string> = {}) => {
      const server = await startServerProcess({ DATABASE_URL: database.url, ONCEFLOW_LEASE_MS: '800', ONCEFLOW_POLL_MS: '30', ...env });
      processes.push(server);
      return server;
    };

    beforeAll(async () => {
      database = await kind.create();
      db = await openDatabase(database.url);
      honouring = await startReceiver({ honoursKeys: true });
    });
    afterAll(async () => {
      for (const server of processes) await server.kill();
      await db?.close();
      await honouring?.close();
      await database?.drop();
    });

    it('killed after the key and the child were written: the restarted parent finishes with its one child', async () => {
      honouring.reset();
      const crashing = await start({ ONCEFLOW_CRASH_AT: 'after-claim:call' });
      const { id: childFlowId } = await trpc<{ id: string }>(crashing.url, 'flows.import', { document: invoiceFlow(honouring.url, { name: 'Child K1' }) });
      const { id: parentId } = await trpc<{ id: string }>(crashing.url, 'flows.import', { document: parentFlow(childFlowId, { name: 'Parent K1' }) });
      const { runId } = await trpc<{ runId: string }>(crashing.url, 'runs.start', { flowId: parentId, input: { order: { id: 'K1', total: 3 } } });
      await crashing.exited;
      expect(await childRunsOf(db, runId)).toHaveLength(1);

      const restarted = await start();
      const parent = await until(`parent run ${runId} to settle`, async () => {
        const run = await getRun(db, runId);
        return run && ['succeeded', 'failed', 'needs_review'].includes(run.status) ? run : undefined;
      }, { timeoutMs: 20_000, everyMs: 30 });
      await restarted.kill();

      expect(parent.status).toBe('succeeded');
      const children = await childRunsOf(db, runId);
      expect(children).toHaveLength(1);
      expect(children[0]?.status).toBe('succeeded');
      const claim = await db.get<{ status: string }>(`SELECT status FROM claims WHERE key = ?`, ['K1:child']);
      expect(claim?.status).toBe('succeeded');
      expect(honouring.effects.get('K1:invoice')).toBe(1);
    });
  });
}
