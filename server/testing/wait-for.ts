/**
 * Waiting for what a test is about instead of sleeping for a while and hoping it happened:
 * a row, a status, a line in a process's output. Each wait has a deadline and says what
 * it was waiting for when that passes.
 */
import type { RunRow, RunStatus } from '../engine/types.ts';
import type { Db } from '../store/db.ts';
import { getRun } from '../store/runs.ts';
import type { ServerProcess } from './server-process.ts';

export interface WaitOptions {
  /** (default: 20 s) */
  timeoutMs?: number;
  /** How often a condition that has no event of its own is looked at (default: 20 ms). */
  everyMs?: number;
}

/**
 * Resolves with the first value of `check` that is neither undefined nor false. `what` names
 * the awaited thing in the error (a function, to say how things stood when time ran out).
 */
export async function until<T>(what: string | (() => string), check: () => T | undefined | false | Promise<T | undefined | false>, options: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${typeof what === 'string' ? what : what()}.`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 20));
  }
}

/** The statuses a run comes to by itself: it ended, or it waits for a person (only a person cancels). */
export const SETTLED_ON_ITS_OWN: RunStatus[] = ['succeeded', 'failed', 'needs_review'];

/** The run, read from the database, once its status is one of `statuses` (looked at every 30 ms unless told). */
export async function untilRunStatus(db: Db, runId: string, statuses: RunStatus[] = SETTLED_ON_ITS_OWN, options: WaitOptions = {}): Promise<RunRow> {
  let last: RunStatus | undefined;
  return until(() => `run ${runId} to be ${statuses.join(' or ')} (it stayed ${last})`, async () => {
    const run = await getRun(db, runId);
    last = run?.status;
    return run && statuses.includes(run.status) ? run : undefined;
  }, { everyMs: 30, ...options });
}

/** Resolves as soon as the process has printed `text` (looked at on every chunk it prints). */
export function outputContains(server: ServerProcess, text: string, options: Pick<WaitOptions, 'timeoutMs'> = {}): Promise<void> {
  if (server.output().includes(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const streams = [server.child.stdout, server.child.stderr].filter((stream) => stream !== null);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      for (const stream of streams) stream.off('data', look);
      server.child.off('exit', exited);
      if (error) reject(error);
      else resolve();
    };
    // Listeners run in the order they were added, so the chunk is already in the output.
    const look = () => server.output().includes(text) && finish();
    const exited = () => finish(new Error(`The process exited without printing "${text}":\n${server.output()}`));
    const timer = setTimeout(() => finish(new Error(`Gave up waiting for "${text}" in the output:\n${server.output()}`)), options.timeoutMs ?? 20_000);
    for (const stream of streams) stream.on('data', look);
    server.child.once('exit', exited);
  });
}
