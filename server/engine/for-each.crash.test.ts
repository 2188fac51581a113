/**
 * A For each killed mid-list (SIGKILL of the real server process at a random item, between
 * the receiver's answer and its record), then restarted: every item's effect happens once at
 * a receiver that honours keys; one that does not is called at most once per item, and the
 * item whose outcome is unknown waits in review, where "it happened" lets the rest run.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { loopFlow, loopInput } from '../testing/loop-flows.ts';
import { trpc } from '../testing/server-process.ts';
import { useReceiver, useServerProcesses } from '../testing/suite-fixtures.ts';
import { SETTLED_ON_ITS_OWN, untilRunStatus } from '../testing/wait-for.ts';
import { loadCheckpoints } from '../store/timeline.ts';

const ITEMS = 100;

/** An item in the middle of the list, different on every run of the suite. */
const randomItem = () => 10 + Math.floor(Math.random() * 80);

for (const kind of testDatabases()) {
  describe(`For each killed mid-list on ${kind.name}`, () => {
    const honouring = useReceiver({ honoursKeys: true });
    const plain = useReceiver({ honoursKeys: false });
    const { db, start, crashDuringRun } = useServerProcesses(kind);
    /** A hundred items take longer to settle than one step: up to 30 s. */
    const settled = (runId: string) => untilRunStatus(db(), runId, SETTLED_ON_ITS_OWN, { timeoutMs: 30_000 });

    /** Starts the loop in a server that dies at `point`, restarts it, and returns the restarted server and the run id. */
    async function crashAt(point: string, document: unknown, batch: string) {
      const { runId } = await crashDuringRun(point, document, loopInput(batch, ITEMS));
      return { restarted: await start(), runId };
    }

    it('five at once, killed after an item acted: on restart every item acts exactly once at the honouring receiver', async () => {
      honouring().reset();
      const item = randomItem();
      const { restarted, runId } = await crashAt(`after-act:send@${item}`, loopFlow(honouring().url, { name: `Crash honouring ${item}`, concurrency: 5 }), 'CH');
      const run = await settled(runId);
      await restarted.kill();
      expect(run.status, `killed at item ${item}`).toBe('succeeded');
      expect(honouring().effects.size).toBe(ITEMS);
      expect([...honouring().effects.entries()].filter(([, count]) => count !== 1)).toEqual([]);
      // The killed item was asked twice with its key and applied once.
      expect(honouring().calls.filter((call) => call.ref === `CH:CH-${item}`).length).toBe(2);
      const checkpoints = await loadCheckpoints(db(), runId);
      expect(checkpoints.filter((row) => row.nodeId.startsWith('send@') && row.status === 'succeeded')).toHaveLength(ITEMS);
    });

    it('one at a time, killed after an item acted at a receiver that ignores keys: at most once per item, the item in review', async () => {
      plain().reset();
      const item = randomItem();
      const { restarted, runId } = await crashAt(`after-act:send@${item}`, loopFlow(plain().url, { name: `Crash plain ${item}`, keyHeader: false }), 'CP');
      const run = await settled(runId);
      expect(run.status, `killed at item ${item}`).toBe('needs_review');
      expect(run.error).toContain(`Item ${item} of ${ITEMS} needs review`);
      expect([...plain().effects.values()].every((count) => count === 1)).toBe(true);
      expect(plain().effects.size).toBe(item);
      const uncertain = (await loadCheckpoints(db(), runId)).filter((row) => row.status === 'uncertain');
      expect(uncertain.map((row) => row.nodeId)).toEqual([`send@${item}`]);

      // The run page offers the review of that item, beside the loop's counts.
      const page = await trpc<{ steps: Array<{ nodeId: string; status: string; loop?: { review: number; done: number } }> }>(restarted.url, 'runs.get', { runId }, 'query');
      expect(page.steps.filter((step) => step.status === 'uncertain').map((step) => step.nodeId)).toEqual([`send@${item}`]);
      expect(page.steps.find((step) => step.nodeId === 'loop')?.loop).toMatchObject({ review: 1, done: item - 1 });

      // A person says it happened: the rest of the list runs, and no item is called twice.
      await trpc(restarted.url, 'runs.resolve', { runId, nodeId: `send@${item}`, decision: 'happened' });
      const resumed = await settled(runId);
      await restarted.kill();
      expect(resumed.status).toBe('succeeded');
      expect(plain().effects.size).toBe(ITEMS);
      expect([...plain().effects.values()].every((count) => count === 1)).toBe(true);
      expect(plain().calls).toHaveLength(ITEMS);
    });

    it('killed after the claim and before the call: the honouring receiver is asked once for that item', async () => {
      honouring().reset();
      const item = randomItem();
      const { restarted, runId } = await crashAt(`after-claim:send@${item}`, loopFlow(honouring().url, { name: `Crash claim ${item}` }), 'CC');
      const run = await settled(runId);
      await restarted.kill();
      expect(run.status, `killed at item ${item}`).toBe('succeeded');
      expect(honouring().calls).toHaveLength(ITEMS);
      expect([...honouring().effects.values()].every((count) => count === 1)).toBe(true);
      const types = await db().all<{ type: string }>(`SELECT type FROM timeline_events WHERE run_id = ? AND node_id = ? ORDER BY id`, [runId, `send@${item}`]);
      expect(types.map((row) => row.type)).toContain('step.recovered');
    });
  });
}
