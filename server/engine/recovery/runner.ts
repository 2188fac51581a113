/**
 * Runs operations in the background, a batch at a time. Between batches it yields to the
 * event loop (other requests stay fast) and reads the operation's status afresh (a Cancel
 * takes effect at the next batch; the batch in hand commits whole or not at all). Where it
 * got to lives only in operation_runs, so a server that starts and finds an operation
 * still "running" carries on from its first pending run: nothing is queued twice. Every
 * process, with a worker or without, takes up operations left running when it starts and
 * looks again now and then, so one started by a process that died is carried on by the
 * others; on PostgreSQL two processes driving one operation split its batches (each
 * batch claims its rows), on SQLite there is one process.
 */
import type { Logger } from 'pino';
import { finishOperation, getOperation, pendingOperationRuns, runningOperationIds } from '../../store/operations.ts';
import { queueBatch, type BatchDeps } from './queue-batch.ts';
import type { AskedRecovery } from './request.ts';
import { rememberedVersions } from './versions.ts';

export interface RunnerOptions {
  /** Runs per transaction (default 200 on PostgreSQL; 100 on SQLite, where a transaction holds every other request until it commits). */
  batchSize?: number;
  /** Pause between batches, so other work gets the database (default 1 ms). */
  pauseMs?: number;
}

export interface OperationRunner {
  /** Starts (or carries on with) an operation in the background; a no-op when it already runs here. */
  launch(id: string): void;
  /** Carries on with every operation left running, e.g. by a server that stopped. */
  resumeAll(): Promise<void>;
  /**
   * Looks again for operations left running every `everyMs` (the first look after one
   * interval; call resumeAll for one at once). A process that started an operation and
   * died leaves it "running" with nobody driving it; the processes still alive take it
   * up. Idempotent: a second call changes nothing.
   */
  watch(everyMs: number): void;
  /** Resolves when the operation's loop in this process has ended. */
  settled(id: string): Promise<void>;
  stop(): Promise<void>;
}

export function createOperationRunner(deps: BatchDeps & { log: Logger; onQueued(): void }, options: RunnerOptions = {}): OperationRunner {
  const batchSize = options.batchSize ?? (deps.db.dialect === 'sqlite' ? 100 : 200);
  const pauseMs = options.pauseMs ?? 1;
  const loops = new Map<string, Promise<void>>();
  let stopping = false;
  let watcher: ReturnType<typeof setInterval> | undefined;

  async function drive(id: string): Promise<void> {
    const operation = await getOperation(deps.db, id);
    if (!operation || operation.status !== 'running') return;
    const ref = { id, name: operation.name, by: operation.createdBy, asked: operation.request as AskedRecovery };
    let after = -1;
    try {
      while (!stopping) {
        const rows = await pendingOperationRuns(deps.db, id, after, batchSize);
        if (rows.length === 0) {
          await finishOperation(deps.db, id, 'finished', deps.clock.now());
          return;
        }
        // Versions are read afresh per batch: one published meanwhile is the latest from then on.
        const queued = await queueBatch({ ...deps, flows: rememberedVersions(deps.flows) }, ref, rows);
        if (queued === 'cancelled') return;
        if (queued > 0) deps.onQueued();
        after = rows.at(-1)!.position;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    } catch (error) {
      if (stopping) return;
      deps.log.error({ err: error, operationId: id }, 'a recovery stopped on an error');
      await finishOperation(deps.db, id, 'failed', deps.clock.now(), `It stopped on an error: ${(error as Error).message}`).catch(() => {});
    }
  }

  return {
    launch(id) {
      if (stopping || loops.has(id)) return;
      const loop = drive(id).finally(() => loops.delete(id));
      loops.set(id, loop);
    },
    async resumeAll() {
      for (const id of await runningOperationIds(deps.db)) this.launch(id);
    },
    watch(everyMs) {
      if (watcher || stopping) return;
      watcher = setInterval(() => {
        this.resumeAll().catch((error: unknown) => deps.log.error({ err: error }, 'could not look for recoveries left running'));
      }, everyMs);
      watcher.unref();
    },
    async settled(id) {
      await loops.get(id);
    },
    async stop() {
      stopping = true;
      clearInterval(watcher);
      await Promise.allSettled([...loops.values()]);
    },
  };
}
