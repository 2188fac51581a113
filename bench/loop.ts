/**
 * Items per second of a For each step: one run whose loop sends each of 10,000 items to an
 * in-process receiver (one side-effect step per item), one at a time and 20 at once, with
 * the process's memory growth while the loop runs.
 */
import pino from 'pino';
import { performance } from 'node:perf_hooks';
import { readEnv } from '../server/env.ts';
import { createServices } from '../server/services.ts';
import { startReceiver } from '../server/testing/receiver.ts';
import { loopFlow, loopInput } from '../server/testing/loop-flows.ts';
import { getRunStatus } from '../server/store/runs.ts';
import { round } from './stats.ts';

export interface LoopBenchResult {
  database: string;
  items: number;
  concurrency: number;
  itemsPerSecond: number;
  /** Most the resident memory grew above where it stood when the loop started. */
  memoryGrowthMb: number;
  /** Seconds to read the finished run as its page opens it (the run and its steps with the loop's counts, runs.view). */
  runPageSeconds: number;
  /** Seconds to read the loop's first page of 20 items as its drawer opens (runs.loopItems). */
  itemsPageSeconds: number;
}

export async function benchLoop(databaseUrl: string, label: string, items: number, concurrency: number): Promise<LoopBenchResult> {
  // The default poll: the run is queued in this process, which wakes the worker at once, and
  // idle slots polling every few milliseconds would only take time from the loop measured.
  const services = await createServices(readEnv({ DATABASE_URL: databaseUrl }), pino({ level: 'silent' }));
  const receiver = await startReceiver({ honoursKeys: true });
  const worker = services.createWorker({ concurrency: 4 });
  try {
    const { id: flowId } = await services.flows.import({ ...loopFlow(receiver.url, { name: `Loop ${concurrency}`, concurrency }), name: `Loop bench ${concurrency}` });
    worker.start();
    // Warm-up: a short list, so the first measured item does not pay for compiling.
    const warm = await services.runs.start({ flowId, input: loopInput('warm', 200) });
    await settled(services.db, warm.runId);

    const input = loopInput(`b${concurrency}`, items);
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
    const started = performance.now();
    const { runId } = await services.runs.start({ flowId, input });
    const run = await settled(services.db, runId);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    if (run !== 'succeeded') throw new Error(`the benchmark loop ended ${run}`);
    if (receiver.effects.size !== items + 200) throw new Error(`the receiver saw ${receiver.effects.size} effects, expected ${items + 200}`);

    const pageStarted = performance.now();
    await services.runs.view(runId);
    const runPageSeconds = (performance.now() - pageStarted) / 1000;
    const itemsStarted = performance.now();
    await services.runs.loopItems(runId, 'loop', 0, 20);
    const itemsPageSeconds = (performance.now() - itemsStarted) / 1000;
    return {
      database: label, items, concurrency,
      itemsPerSecond: Math.round(items / seconds),
      memoryGrowthMb: round((peak - baseline) / 1024 / 1024, 1),
      runPageSeconds: round(runPageSeconds, 2),
      itemsPageSeconds: round(itemsPageSeconds, 3),
    };
  } finally {
    await worker.stop();
    await receiver.close();
    await services.close();
  }
}

/** Waits for the run to end, reading only its status (the 10,000-item input is not parsed each time). */
async function settled(db: Parameters<typeof getRunStatus>[0], runId: string): Promise<string> {
  for (;;) {
    const status = await getRunStatus(db, runId);
    if (status && ['succeeded', 'failed', 'needs_review', 'cancelled'].includes(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
