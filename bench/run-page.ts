/**
 * What opening a run's page costs as its timeline grows: the run answer (`runs.get`, which
 * no longer carries events), the first timeline page, and one live update of `runs.watch`,
 * each in bytes and database statements. Beside them, the whole-timeline read the page made
 * before the timeline was paged (`runs.get` then returned every event; scripts still can).
 */
import pino from 'pino';
import { readEnv } from '../server/env.ts';
import { createServices, type Services } from '../server/services.ts';
import { insertEvents } from '../server/store/timeline.ts';
import type { TimelineEvent } from '../server/engine/types.ts';
import { waitAllSettled } from './runs.ts';

/** The page's first timeline read (web/runs/useTimeline.ts asks for this many). */
const FIRST_PAGE = 2000;

export interface RunPageRow {
  database: string;
  events: number;
  /** `runs.get` as the page reads it: the run and its steps. */
  answerBytes: number;
  answerStatements: number;
  firstPageBytes: number;
  firstPageStatements: number;
  /** One server-sent message for one new event, and the statements of that look. */
  liveUpdateBytes: number;
  liveUpdateStatements: number;
  /** Everything at once, as the page read it every second before. */
  wholeReadBytes: number;
  wholeReadStatements: number;
}

/** Counts the statements `services.db` runs while `body` does. */
async function counted<T>(services: Services, body: () => Promise<T>): Promise<{ value: T; statements: number }> {
  const db = services.db as unknown as Record<'all' | 'get' | 'run', (...args: unknown[]) => Promise<unknown>>;
  const originals = { all: db.all, get: db.get, run: db.run };
  let statements = 0;
  for (const name of ['all', 'get', 'run'] as const) {
    db[name] = (...args: unknown[]) => {
      statements++;
      return originals[name].apply(services.db, args);
    };
  }
  try {
    return { value: await body(), statements };
  } finally {
    Object.assign(db, originals);
  }
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** A plausible mix of the events a long, much-repeated run collects. */
function filler(runId: string, from: number, count: number, at: number): TimelineEvent[] {
  return Array.from({ length: count }, (_, offset) => {
    const i = from + offset;
    const kind = i % 3;
    if (kind === 0) return { runId, type: 'webhook.duplicate', nodeId: 'start', attempt: 1, data: { eventId: `evt_${i}`, repeat: 2 + (i % 7) }, createdAt: at + i };
    if (kind === 1) return { runId, type: 'step.duplicate', nodeId: 'act', attempt: 1, data: { key: 'order-9001:act', scope: 'bench:act', output: { status: 200 } }, createdAt: at + i };
    return { runId, type: 'step.retry_scheduled', nodeId: 'act', attempt: 1, data: { message: 'The receiver did not answer in time.', retry: 1 + (i % 3), delayMs: 200 }, createdAt: at + i };
  });
}

async function measure(services: Services, runId: string, label: string, events: number): Promise<RunPageRow> {
  const answer = await counted(services, () => services.runs.view(runId));
  const firstPage = await counted(services, () => services.runs.timeline(runId, 0, FIRST_PAGE));
  const whole = await counted(services, () => services.runs.get(runId));

  // A watcher that has seen everything, then one more event arrives.
  const lastId = whole.value.timeline.at(-1)?.id ?? 0;
  await insertEvents(services.db, filler(runId, events, 1, Date.now()));
  const controller = new AbortController();
  const live = await counted(services, async () => {
    const changes = services.runs.watch(runId, lastId, controller.signal);
    const first = await changes.next();
    controller.abort();
    await changes.return(undefined);
    return first.value;
  });
  // The frame tRPC writes: the event id, then the rest of the change as JSON (server/trpc/runs.ts).
  const { lastId: frameId, ...change } = live.value ?? {};
  const liveFrame = `id: ${frameId}\ndata: ${JSON.stringify(change)}\n\n`;

  return {
    database: label,
    events,
    answerBytes: bytes(answer.value),
    answerStatements: answer.statements,
    firstPageBytes: bytes(firstPage.value),
    firstPageStatements: firstPage.statements,
    liveUpdateBytes: Buffer.byteLength(liveFrame),
    liveUpdateStatements: live.statements,
    wholeReadBytes: bytes(whole.value),
    wholeReadStatements: whole.statements,
  };
}

/** A finished run with 10 timeline events, then 1,000, then 10,000. */
export async function benchRunPage(databaseUrl: string, label: string): Promise<RunPageRow[]> {
  const services = await createServices(readEnv({ DATABASE_URL: databaseUrl, ONCEFLOW_POLL_MS: '5' }), pino({ level: 'silent' }));
  try {
    const { id: flowId } = await services.flows.import({
      format: 'onceflow/v1',
      name: 'Long timeline',
      nodes: [
        { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
        { id: 'act', type: 'transform', position: { x: 200, y: 0 }, data: { outputs: { order: '{{ trigger.body.order.id }}' } } },
      ],
      edges: [{ id: 'e1', source: 'start', target: 'act' }],
    });
    const { runId } = await services.runs.start({ flowId, input: { order: { id: '9001' } } });
    const worker = services.createWorker({ concurrency: 1 });
    worker.start();
    await waitAllSettled(services.db);
    await worker.stop();

    const rows: RunPageRow[] = [];
    let written = (await services.runs.get(runId)).timeline.length;
    for (const target of [10, 1000, 10_000]) {
      for (let next = written; next < target; next += 1000) await insertEvents(services.db, filler(runId, next, Math.min(1000, target - next), Date.now()));
      written = Math.max(written, target);
      rows.push(await measure(services, runId, label, target));
      written++; // the live update's event
    }
    return rows;
  } finally {
    await services.close();
  }
}
