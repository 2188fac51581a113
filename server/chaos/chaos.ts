/**
 * The chaos harness: real server and worker processes on one database, flows with side
 * effects against counting receivers (one honours keys, one does not), SIGKILLs at
 * seeded random times, restarts, then checks that nothing was done twice or lost.
 */
import { openDatabase } from '../store/db.ts';
import { runStatusCounts } from '../store/run-stats.ts';
import { listRuns } from '../store/run-list.ts';
import { startReceiver } from '../testing/receiver.ts';
import { startServerProcess, trpc, type ServerProcess } from '../testing/server-process.ts';
import { postJson } from '../testing/http-client.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';
import { seededRandom } from './random.ts';

/** More runs than any chaos session makes: "all of them" for the checks. */
const EVERY_RUN = 1_000_000;

export interface ChaosOptions {
  databaseUrl: string;
  /** Extra `onceflow worker` processes beside the server (default: 0, the embedded worker only). */
  workers: number;
  trials: number;
  seed: number;
  runsPerTrial?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  trials: number;
  runs: number;
  kills: number;
  effectsExpected: number;
  effectsSeen: number;
  duplicates: number;
  lost: number;
  uncertain: number;
  deliveries: number;
  eventsAcknowledged: number;
  failed: number;
  statuses: Record<string, number>;
  ok: boolean;
}

function chaosFlow(honouringUrl: string, plainUrl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Chaos: invoice then notify',
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      { id: 'prep', type: 'transform', position: { x: 150, y: 0 }, data: { outputs: { order: '{{ trigger.body.order.id }}' } } },
      { id: 'invoice', type: 'http.request', position: { x: 300, y: 0 }, data: {
        sideEffect: true, key: '{{ trigger.body.order.id }}:invoice', receiverKeyHeader: 'Idempotency-Key', timeoutMs: 3000,
        retry: { max: 3, backoff: 'fixed', delayMs: 50 },
        request: { method: 'POST', url: `${honouringUrl}/invoices`, body: '{"ref": "{{ trigger.body.order.id }}:invoice"}' },
      } },
      { id: 'notify', type: 'http.request', position: { x: 450, y: 0 }, data: {
        sideEffect: true, key: '{{ trigger.body.order.id }}:notify', timeoutMs: 3000, retry: { max: 3, backoff: 'fixed', delayMs: 50 },
        request: { method: 'POST', url: `${plainUrl}/messages`, body: '{"ref": "{{ trigger.body.order.id }}:notify"}' },
      } },
      { id: 'done', type: 'transform', position: { x: 600, y: 0 }, data: { outputs: { invoice: '{{ steps.invoice.output.body.id }}' } } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'prep' }, { id: 'e2', source: 'prep', target: 'invoice' },
      { id: 'e3', source: 'invoice', target: 'notify' }, { id: 'e4', source: 'notify', target: 'done' },
    ],
  };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => {});
  const random = seededRandom(options.seed);
  const runsPerTrial = options.runsPerTrial ?? 8;
  const honouring = await startReceiver({ honoursKeys: true });
  const plain = await startReceiver({ honoursKeys: false });
  // Receivers answer a little late so kills land inside calls as well as between them.
  honouring.behave = () => ({ kind: 'slow', delayMs: Math.floor(random() * 30) });
  plain.behave = () => ({ kind: 'slow', delayMs: Math.floor(random() * 30) });
  const env = { DATABASE_URL: options.databaseUrl, ONCEFLOW_LEASE_MS: '700', ONCEFLOW_POLL_MS: '30', ONCEFLOW_WORKER_CONCURRENCY: '16' };
  const startWorker = () => startServerProcess(env, ['worker']);
  const processes: ServerProcess[] = [await startServerProcess(env)];
  for (let index = 0; index < options.workers; index++) processes.push(await startWorker());
  const server = () => processes[0]!;
  const db = await openDatabase(options.databaseUrl);
  const runIds: string[] = [];
  const orderIds: string[] = [];
  const acknowledged = new Map<string, Set<string>>();
  let deliveries = 0;
  let kills = 0;
  try {
    const { id: flowId } = await trpc<{ id: string }>(server().url, 'flows.import', { document: chaosFlow(honouring.url, plain.url) });
    const hook = await trpc<{ id: string; triggers: { hookId: string }[] }>(server().url, 'flows.import', { document: webhookEffectFlow(honouring.url) });
    for (let trial = 0; trial < options.trials; trial++) {
      const batch = Array.from({ length: runsPerTrial }, (_, index) =>
        orderIds.length > 0 && random() < 0.25 ? orderIds[Math.floor(random() * orderIds.length)]! : `o${options.seed}-${trial}-${index}`,
      );
      for (const orderId of batch) {
        try {
          const { runId } = await trpc<{ runId: string }>(server().url, 'runs.start', { flowId, input: { order: { id: orderId } } });
          runIds.push(runId);
          orderIds.push(orderId);
        } catch {
          // Not acknowledged: the sender would retry; this run is not owed.
        }
      }
      // Webhook deliveries, a third of them repeats of earlier event ids.
      for (let index = 0; index < 4; index++) {
        const known = [...acknowledged.keys()];
        const eventId = known.length > 0 && random() < 0.33 ? known[Math.floor(random() * known.length)]! : `wh${options.seed}-${trial}-${index}`;
        deliveries++;
        try {
          const answer = await postJson(`${server().url}/hooks/${hook.triggers[0]!.hookId}`, { id: eventId });
          if (answer.status === 200 || answer.status === 202) acknowledged.set(eventId, new Set([...(acknowledged.get(eventId) ?? []), answer.body.runId as string]));
        } catch {
          // Not acknowledged: the sender would retry.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 250)));
      const victim = Math.floor(random() * processes.length);
      await processes[victim]!.kill();
      kills++;
      processes[victim] = victim === 0 ? await startServerProcess(env) : await startWorker();
      log(`trial ${trial + 1}/${options.trials}: killed ${victim === 0 ? 'server' : `worker ${victim}`}, ${runIds.length} runs so far`);
    }

    const deadline = Date.now() + 90_000;
    let statuses: Record<string, number> = {};
    for (;;) {
      statuses = await runStatusCounts(db);
      const unsettled = (statuses.queued ?? 0) + (statuses.running ?? 0) + (statuses.waiting ?? 0);
      if (unsettled === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const known = new Set((await listRuns(db, { limit: EVERY_RUN })).map((run) => run.id));
    const lostMissing = runIds.filter((id) => !known.has(id)).length;
    // Every acknowledged event: exactly one run, the one every acknowledgement named.
    const hookRuns = await listRuns(db, { flowId: hook.id, limit: EVERY_RUN });
    const runsPerEvent = new Map<string, string[]>();
    for (const run of hookRuns) runsPerEvent.set(run.eventId!, [...(runsPerEvent.get(run.eventId!) ?? []), run.id]);
    let eventProblems = 0;
    for (const [eventId, named] of acknowledged) {
      const runsOfEvent = runsPerEvent.get(eventId) ?? [];
      if (runsOfEvent.length !== 1 || named.size !== 1 || !named.has(runsOfEvent[0]!)) eventProblems++;
    }
    const unsettled = (statuses.queued ?? 0) + (statuses.running ?? 0) + (statuses.waiting ?? 0);
    const distinctOrders = new Set(orderIds);
    const honouringDuplicates = [...honouring.effects.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    const plainDuplicates = [...plain.effects.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    const succeededOrders = new Set(
      (await listRuns(db, { flowId, status: 'succeeded', limit: EVERY_RUN })).map((run) => (run.input as { order: { id: string } }).order.id),
    );
    const missingEffects = [...succeededOrders].filter((orderId) => honouring.effects.get(`${orderId}:invoice`) !== 1).length;
    const missingHookEffects = [...acknowledged.keys()].filter((eventId) => honouring.effects.get(`${eventId}:effect`) !== 1).length;
    const report: ChaosReport = {
      trials: options.trials,
      runs: runIds.length,
      kills,
      effectsExpected: distinctOrders.size + acknowledged.size,
      effectsSeen: honouring.totalEffects(),
      duplicates: honouringDuplicates + plainDuplicates,
      lost: lostMissing + unsettled + missingEffects + missingHookEffects + eventProblems,
      uncertain: statuses.needs_review ?? 0,
      deliveries,
      eventsAcknowledged: acknowledged.size,
      failed: statuses.failed ?? 0,
      statuses,
      ok: false,
    };
    report.ok = report.duplicates === 0 && report.lost === 0 && report.failed === 0;
    return report;
  } finally {
    for (const process of processes) await process.kill();
    await db.close();
    await honouring.close();
    await plain.close();
  }
}
