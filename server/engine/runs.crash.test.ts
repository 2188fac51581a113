/**
 * Crash windows of DESIGN.md §5, with real server processes killed by SIGKILL at named
 * points, then restarted. Expected: receivers that honour keys apply each effect once;
 * receivers that do not are never called twice for one key (the step is uncertain
 * instead); every run ends succeeded, failed or needs_review.
 */
import { describe, expect, it } from 'vitest';
import { invoiceFlow } from '../testing/engine-harness.ts';
import { testDatabases } from '../testing/databases.ts';
import type { Receiver } from '../testing/receiver.ts';
import { importFlow, startRun } from '../testing/server-process.ts';
import { useReceiver, useServerProcesses } from '../testing/suite-fixtures.ts';
import { outputContains, untilRunStatus } from '../testing/wait-for.ts';
import type { Db } from '../store/db.ts';
import { getRun } from '../store/runs.ts';

async function eventTypes(db: Db, runId: string, nodeId?: string): Promise<string[]> {
  const rows = await db.all<{ type: string; node_id: string | null }>(`SELECT type, node_id FROM timeline_events WHERE run_id = ? ORDER BY id`, [runId]);
  return rows.filter((row) => nodeId === undefined || row.node_id === nodeId).map((row) => row.type);
}

for (const kind of testDatabases()) {
  describe(`crash windows on ${kind.name}`, () => {
    const honouring = useReceiver({ honoursKeys: true });
    const plain = useReceiver({ honoursKeys: false });
    const { db, start, crashDuringRun } = useServerProcesses(kind);

    /** Publishes the flow, starts one run in a server that dies at `point`, restarts it, and returns the settled run. */
    async function crashAt(point: string, receiver: Receiver, orderId: string) {
      const document = invoiceFlow(receiver.url, { keyHeader: receiver === honouring() });
      const { runId } = await crashDuringRun(point, document, { order: { id: orderId, total: 7 } });
      const restarted = await start();
      const run = await untilRunStatus(db(), runId);
      await restarted.kill();
      return run;
    }

    it('after the claim and before the call: a key-honouring step is recovered and acts once', async () => {
      honouring().reset();
      const run = await crashAt('after-claim:invoice', honouring(), 'W1-H');
      expect(run.status).toBe('succeeded');
      expect(honouring().effects.get('W1-H:invoice')).toBe(1);
      expect(await eventTypes(db(), run.id, 'invoice')).toContain('step.recovered');
    });

    it('after the claim and before the call: a step whose receiver ignores keys becomes uncertain, never called', async () => {
      plain().reset();
      const run = await crashAt('after-claim:invoice', plain(), 'W1-P');
      expect(run.status).toBe('needs_review');
      expect(plain().calls).toHaveLength(0);
      expect(await eventTypes(db(), run.id, 'invoice')).toContain('step.uncertain');
    });

    it('after the receiver acted and before the record: the honouring receiver applies the effect once', async () => {
      honouring().reset();
      const run = await crashAt('after-act:invoice', honouring(), 'W2-H');
      expect(run.status).toBe('succeeded');
      expect(honouring().calls.length).toBe(2);
      expect(honouring().effects.get('W2-H:invoice')).toBe(1);
    });

    it('after the receiver acted and before the record: the other receiver is called once and the run needs review', async () => {
      plain().reset();
      const run = await crashAt('after-act:invoice', plain(), 'W2-P');
      expect(run.status).toBe('needs_review');
      expect(plain().calls).toHaveLength(1);
    });

    it('after a checkpoint and before the next step: the run resumes and skips the recorded step', async () => {
      plain().reset();
      const run = await crashAt('after-checkpoint:invoice', plain(), 'W3-P');
      expect(run.status).toBe('succeeded');
      expect(plain().calls).toHaveLength(1);
      const invoiceEvents = await eventTypes(db(), run.id, 'invoice');
      expect(invoiceEvents.filter((type) => type === 'step.succeeded')).toHaveLength(1);
      expect(invoiceEvents).toContain('step.skipped');
    });

    it('a delay survives a restart and fires once', async () => {
      honouring().reset();
      const server = await start();
      const flow = invoiceFlow(honouring().url);
      const document = {
        ...flow,
        nodes: [flow.nodes[0], { id: 'wait', type: 'delay', position: { x: 100, y: 0 }, data: { for: '1500ms' } }, ...flow.nodes.slice(1)],
        edges: [{ id: 'e0', source: 'start', target: 'wait' }, { id: 'e1', source: 'wait', target: 'invoice' }, flow.edges[1]],
      };
      const flowId = await importFlow(server.url, document);
      const runId = await startRun(server.url, flowId, { order: { id: 'DL-1', total: 1 } });
      await untilRunStatus(db(), runId, ['waiting']);
      await server.kill();
      expect(honouring().calls).toHaveLength(0);
      const restarted = await start();
      const run = await untilRunStatus(db(), runId);
      await restarted.kill();
      expect(run.status).toBe('succeeded');
      expect((await eventTypes(db(), runId, 'wait')).filter((type) => type === 'step.succeeded')).toHaveLength(1);
      expect(honouring().effects.get('DL-1:invoice')).toBe(1);
    });

    it('fencing: a worker stopped past its lease cannot overwrite the result of the worker that took over', async () => {
      honouring().reset();
      const stale = await start();
      const flowId = await importFlow(stale.url, invoiceFlow(honouring().url, { timeoutMs: 10_000 }));
      let stopped = false;
      honouring().behave = (_call, n) => (n === 1 ? { kind: 'slow', delayMs: 2500 } : { kind: 'ok' });
      // Stopped while its request waits for the receiver's answer, right after a heartbeat:
      // a process frozen inside a SQLite write would hold the database's one write lock and
      // stop every process, which is not what this models. The heartbeat's last write is
      // the claim's lease; once it has moved, the next write is a heartbeat away.
      honouring().onCall = () => {
        if (stopped) return;
        stopped = true;
        void (async () => {
          const lease = async () => (await db().get<{ lease_until: number }>(`SELECT lease_until FROM claims WHERE key = ?`, ['F-9:invoice']))?.lease_until;
          const first = await lease();
          const deadline = Date.now() + 2000;
          while ((await lease()) === first && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
          stale.signal('SIGSTOP');
        })();
      };
      const runId = await startRun(stale.url, flowId, { order: { id: 'F-9', total: 1 } });
      const taker = await start({ ONCEFLOW_WORKER_CONCURRENCY: '4' });
      const run = await untilRunStatus(db(), runId);
      expect(run.status).toBe('succeeded');
      stale.signal('SIGCONT');
      // The woken worker gets its late answer and tries to record it: that write is refused.
      await outputContains(stale, 'stale write refused');
      honouring().behave = () => ({ kind: 'ok' });
      honouring().onCall = undefined;

      const claim = await db().get<{ fence: number; status: string }>(`SELECT fence, status FROM claims WHERE key = ?`, ['F-9:invoice']);
      expect(claim).toMatchObject({ fence: 2, status: 'succeeded' });
      const invoiceEvents = await eventTypes(db(), runId, 'invoice');
      expect(invoiceEvents.filter((type) => type === 'step.succeeded')).toHaveLength(1);
      expect(invoiceEvents).toContain('step.recovered');
      expect((await getRun(db(), runId))?.status).toBe('succeeded');
      expect(honouring().effects.get('F-9:invoice')).toBe(1);
      expect(stale.output()).toContain('stale write refused');
      // The stopped worker recovers: it is still serving.
      expect((await fetch(`${stale.url}/healthz`)).ok).toBe(true);
      await stale.kill();
      await taker.kill();
    });
  });
}
