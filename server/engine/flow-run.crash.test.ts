/**
 * A Run flow step killed by SIGKILL in its one crash window, on each database: right
 * after the transaction that won the key and inserted the child, before the parent parked.
 * After a restart the parent finishes with the one child its key claimed; the child's
 * receiver sees one effect. (Killed after the step's record, the restart skips the
 * checkpoint like any step's: runs.crash.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { invoiceFlow } from '../testing/engine-harness.ts';
import { testDatabases } from '../testing/databases.ts';
import { parentFlow } from '../testing/flow-run-flows.ts';
import { importFlow, startRun } from '../testing/server-process.ts';
import { useReceiver, useServerProcesses } from '../testing/suite-fixtures.ts';
import { untilRunStatus } from '../testing/wait-for.ts';
import { childRunsOf } from '../store/child-runs.ts';

for (const kind of testDatabases()) {
  describe(`Run flow crash windows on ${kind.name}`, () => {
    const honouring = useReceiver({ honoursKeys: true });
    const { db, start } = useServerProcesses(kind);

    it('killed after the key and the child were written: the restarted parent finishes with its one child', async () => {
      honouring().reset();
      const crashing = await start({ ONCEFLOW_CRASH_AT: 'after-claim:call' });
      const childFlowId = await importFlow(crashing.url, invoiceFlow(honouring().url, { name: 'Child K1' }));
      const parentId = await importFlow(crashing.url, parentFlow(childFlowId, { name: 'Parent K1' }));
      const runId = await startRun(crashing.url, parentId, { order: { id: 'K1', total: 3 } });
      await crashing.exited;
      expect(await childRunsOf(db(), runId)).toHaveLength(1);

      const restarted = await start();
      const parent = await untilRunStatus(db(), runId);
      await restarted.kill();

      expect(parent.status).toBe('succeeded');
      const children = await childRunsOf(db(), runId);
      expect(children).toHaveLength(1);
      expect(children[0]?.status).toBe('succeeded');
      const claim = await db().get<{ status: string }>(`SELECT status FROM claims WHERE key = ?`, ['K1:child']);
      expect(claim?.status).toBe('succeeded');
      expect(honouring().effects.get('K1:invoice')).toBe(1);
    });
  });
}
