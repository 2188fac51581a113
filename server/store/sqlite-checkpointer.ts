/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever
 * COMMIT crosses the threshold: it copies the WAL into the database file and syncs it,
 * and because better-sqlite3 is synchronous, every request waits behind it. Measured on
 * webhook ingestion it was most of the cost of a commit. Here a worker thread with its own
 * connection runs PASSIVE checkpoints on a timer instead; PASSIVE never takes the write
 * lock, so the main connection keeps committing meanwhile.
 *
 * The WAL starts over from its beginning only at a write that finds every frame already
 * copied, and under steady writes none does: commits land while each pass copies. The WAL
 * then grew to the main connection's own threshold (the safety net below), which
 * checkpointed it on the event loop: on webhook intake a stall of 18–53 ms about twice a
 * second, 3.7 % of the process's time. So when a pass finds the WAL longer than
 * RESTART_FRAMES, the thread catches up with passes while writes go on until one is quick,
 * then asks for a pause: the main connection, which marks each of its transactions in a
 * shared word (`writeStarting`, `writeEnded`), starts none until it is lifted; the thread
 * waits for the transaction in progress to end, copies the last frames, and lifts it. The
 * next write finds every frame copied and starts the WAL over. Requests go on being read
 * meanwhile; only commits wait. Before it asks, the thread syncs the files itself, so
 * the pause is short (why: at `sync` below; figures: ARCHITECTURE.md).
 *
 * The main connection keeps a high automatic threshold as a safety net: should this thread
 * fall behind or die, the WAL is still checkpointed, only on the event loop.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export const CHECKPOINT_INTERVAL_MS = 200;
/** Pages (4 KiB each) after which the main connection checkpoints by itself. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_384;
/** Frames in the WAL past which the thread has it start over (32 MiB of 4 KiB pages). */
export const RESTART_FRAMES = 8_192;
/** A pass this quick (ms) leaves little for the next: the paused one follows it. */
const QUICK_PASS_MS = 3;
/** The longest either side waits for the other; past it each goes on, and SQLite's locks still hold. */
const MAX_WAIT_MS = 1000;

/** The shared words: the thread asks for a pause in one, the main connection marks its transaction in the other. */
const PAUSE = 0;
const IN_TRANSACTION = 1;

// Plain CommonJS evaluated in the worker, so it needs no TypeScript loader. A reader in
// another process that holds an old snapshot keeps frames from being copied, and so the
// WAL from starting over: when the paused pass could not copy every frame, writes are not
// paused again for a while.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { closeSync, fsyncSync, openSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 0 });
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const shared = new Int32Array(workerData.shared);
let pausedPassLog = 0;
let skipPauses = 0;
function sync(path) {
  let fd;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch { /* not there yet: the pass syncs what there is */ } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
function pausedPass() {
  Atomics.store(shared, ${PAUSE}, 1);
  try {
    Atomics.wait(shared, ${IN_TRANSACTION}, 1, workerData.maxWaitMs);
    if (Atomics.load(shared, ${IN_TRANSACTION}) !== 0) return;
    const { log, checkpointed } = passive.get();
    pausedPassLog = log;
    if (checkpointed < log) skipPauses = workerData.backoffPasses;
  } finally {
    Atomics.store(shared, ${PAUSE}, 0);
    Atomics.notify(shared, ${PAUSE});
  }
}
/** Passes while writes go on, until one is quick: little is left for the paused one. */
function catchUp() {
  for (let pass = 0; pass < 3; pass++) {
    const started = performance.now();
    passive.get();
    if (performance.now() - started < workerData.quickPassMs) break;
  }
}
const tick = () => {
  try {
    const { log } = passive.get();
    // Nothing written since the paused pass: the next write starts the WAL over.
    if (log === pausedPassLog) return;
    pausedPassLog = 0;
    if (log <= workerData.restartFrames) return;
    if (skipPauses > 0) {
      skipPauses--;
      return;
    }
    catchUp();
    // A pass syncs the database file only once it has copied every frame, which under
    // steady writes only the paused pass does: it would flush all the passes before it
    // copied. Synced here, while writes go on, it has only its last frames to sync.
    sync(workerData.path);
    sync(workerData.path + '-wal');
    catchUp();
    pausedPass();
  } catch { /* busy or closing: the next tick tries again */ }
};
// Each pass is timed from the end of the last: a long one is not followed by another at once.
let timer = setTimeout(function next() { tick(); timer = setTimeout(next, workerData.intervalMs); }, workerData.intervalMs);
parentPort.on('message', () => { clearTimeout(timer); tick(); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  /**
   * Marks a transaction of the main connection as started; resolves once the thread lets
   * it go on (at once unless it asked for a pause). Each is followed by `writeEnded`.
   */
  writeStarting(): Promise<void> | undefined;
  writeEnded(): void;
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, options: { intervalMs?: number; restartFrames?: number } = {}): Checkpointer {
  const { intervalMs = CHECKPOINT_INTERVAL_MS, restartFrames = RESTART_FRAMES } = options;
  const shared = new Int32Array(new SharedArrayBuffer(8));
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // Its JavaScript is a timer and one prepared statement: a small heap keeps the thread's
  // own V8 instance from reserving the main thread's default sizes (about 6 MB of RSS).
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, driver, intervalMs, restartFrames, quickPassMs: QUICK_PASS_MS, maxWaitMs: MAX_WAIT_MS, backoffPasses: Math.ceil(5000 / intervalMs), shared: shared.buffer },
    resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 },
  });
  // A failed checkpointer costs speed, never data: the fallback threshold takes over.
  worker.on('error', () => {});
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => {
    // A thread that died mid-pause must not leave writes waiting.
    Atomics.store(shared, PAUSE, 0);
    Atomics.notify(shared, PAUSE);
    resolve();
  }));
  const writeEnded = () => {
    Atomics.store(shared, IN_TRANSACTION, 0);
    Atomics.notify(shared, IN_TRANSACTION);
  };
  // Marked before the pause is read, and the thread sets its pause before reading the
  // mark: one of the two always sees the other (Atomics are sequentially consistent).
  const writeStarting = (): Promise<void> | undefined => {
    Atomics.store(shared, IN_TRANSACTION, 1);
    if (Atomics.load(shared, PAUSE) === 0) return undefined;
    writeEnded();
    const wait = Atomics.waitAsync(shared, PAUSE, 1, MAX_WAIT_MS);
    // A wait alone does not keep the process running: a timer does, meanwhile.
    const keepAlive = setTimeout(() => {}, MAX_WAIT_MS);
    return (wait.async ? wait.value : Promise.resolve()).then(() => {
      clearTimeout(keepAlive);
      Atomics.store(shared, IN_TRANSACTION, 1);
    });
  };
  return {
    writeStarting,
    writeEnded,
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
