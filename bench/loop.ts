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
import { getRun } from '../server/store/runs.ts';
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
}

export async function benchLoop(databaseUrl: string, label: string, items: number, concurrency: number): Promise<LoopBenchResult> {
  const services = await createServices(readEnv({ DATABASE_URL: databaseUrl, ONCEFLOW_POLL_MS: '5' }), pino({ level: 'silent' }));
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
    return {
      database: label, items, concurrency,
      itemsPerSecond: Math.round(items / seconds),
      memoryGrowthMb: round((peak - baseline) / 1024 / 1024, 1),
      runPageSeconds: round(runPageSeconds, 2),
    };
  } finally {
    await worker.stop();
    await receiver.close();
    await services.close();
  }
}

async function settled(db: Parameters<typeof getRun>[0], runId: string): Promise<string> {
  for (;;) {
    const run = await getRun(db, runId);
    if (run && ['succeeded', 'failed', 'needs_review', 'cancelled'].includes(run.status)) return run.status;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
