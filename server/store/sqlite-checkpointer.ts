/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever
 * COMMIT crosses the threshold: it copies the WAL into the database file and syncs it,
 * and because better-sqlite3 is synchronous, every request waits behind it. Measured on
 * webhook ingestion it was most of the cost of a commit. Here a worker thread with its own
 * connection runs PASSIVE checkpoints on a timer instead; PASSIVE never takes the write
 * lock, so the main connection keeps committing meanwhile, and the next write after a
 * complete checkpoint starts the WAL over from its beginning, which keeps it small.
 *
 * The main connection keeps a high automatic threshold as a safety net: should this thread
 * fall behind or die, the WAL is still checkpointed, only on the event loop.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export const CHECKPOINT_INTERVAL_MS = 200;
/** Pages (4 KiB each) after which the main connection checkpoints by itself. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_384;

// Plain CommonJS evaluated in the worker, so it needs no TypeScript loader.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 0 });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const tick = () => { try { checkpoint.run(); } catch { /* busy or closing: the next tick tries again */ } };
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); tick(); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // Its JavaScript is a timer and one prepared statement: a small heap keeps the thread's
  // own V8 instance from reserving the main thread's default sizes (about 6 MB of RSS).
  const worker = new Worker(WORKER_SOURCE, {
    eval: true, workerData: { path, driver, intervalMs }, resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 },
  });
  // A failed checkpointer costs speed, never data: the fallback threshold takes over.
  worker.on('error', () => {});
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Held until it has finished its last checkpoint and closed its connection.
      worker.ref();
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
