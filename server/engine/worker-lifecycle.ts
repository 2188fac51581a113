/**
 * The worker's lifecycle: one mode at a time, moved only along the arrows below, and a
 * count of the background work it started (heartbeats, the lease loop and its polls,
 * setting up wake-ups), so stopping waits for work in flight instead of pulling the
 * database out from under it. Runs in hand are waited for too, within a grace period.
 *
 * Modes (what happens on entry)
 * - idle: created; nothing runs and nothing is held.
 * - starting: heartbeats begin (the first one announces the worker) and it sets up
 *   listening for wake-ups. It leases nothing yet, so no wake-up can fall between its
 *   first look for work and the moment it listens.
 * - running: it leases and executes runs, heartbeating their leases and claims.
 * - stopping: it leases nothing more; runs in hand get a grace period, then are aborted
 *   and their leases released. Heartbeats go on until then, because a run finishing in
 *   the grace period must keep its lease.
 * - stopped: final. Every piece of background work has settled, the worker no longer
 *   listens and has retired its announcement.
 *
 * Moves: idle → starting → running → stopping → stopped, plus starting → stopping (asked
 * to stop while starting) and idle → stopped (asked to stop before it started).
 */
import { UnexpectedError } from './errors.ts';

export const WORKER_MODES = ['idle', 'starting', 'running', 'stopping', 'stopped'] as const;
export type WorkerMode = (typeof WORKER_MODES)[number];

const NEXT_MODES: Record<WorkerMode, readonly WorkerMode[]> = {
  idle: ['starting', 'stopped'],
  starting: ['running', 'stopping'],
  running: ['stopping'],
  stopping: ['stopped'],
  stopped: [],
};

export class WorkerLifecycle {
  #mode: WorkerMode = 'idle';
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #arrivals = new Map<WorkerMode, { promise: Promise<void>; resolve: () => void }>();

  get mode(): WorkerMode {
    return this.#mode;
  }

  /** Moves to `next`; any move the diagram does not show is a bug, so it throws. */
  enter(next: WorkerMode): void {
    if (!NEXT_MODES[this.#mode].includes(next)) {
      throw new UnexpectedError(`The worker cannot go from ${this.#mode} to ${next}.`);
    }
    this.#mode = next;
    for (const mode of WORKER_MODES.slice(0, WORKER_MODES.indexOf(next) + 1)) this.#arrival(mode).resolve();
  }

  /** Resolves once the worker has entered `mode` or any mode after it. */
  reached(mode: WorkerMode): Promise<void> {
    return this.#arrival(mode).promise;
  }

  /**
   * Counts `work` until it settles. Refused once stopped: work started then would outlive
   * the database it uses.
   */
  background<T>(work: Promise<T>): Promise<T> {
    if (this.#mode === 'stopped') throw new UnexpectedError('The worker is stopped; it cannot start more work.');
    this.#inFlight.add(work);
    const forget = () => this.#inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** How much background work is in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Resolves when no background work is in flight, including work started while waiting. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #arrival(mode: WorkerMode) {
    let arrival = this.#arrivals.get(mode);
    if (!arrival) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      arrival = { promise, resolve };
      this.#arrivals.set(mode, arrival);
    }
    return arrival;
  }
}

export interface Repeater {
  /** Cancels the next round and resolves when the one in flight, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `task` now and then again every `intervalMs`, never two at once: the next round is
 * scheduled when the previous one finishes, at its start plus the interval, or at once if
 * it took longer than that. A lease renewed this way keeps its cadence on a slow database
 * without piling renewals onto it. `task` must handle its own errors.
 */
export function repeatEvery(intervalMs: number, task: () => Promise<void>, options: { track?: <T>(work: Promise<T>) => Promise<T>; immediately?: boolean } = {}): Repeater {
  const track = options.track ?? ((work) => work);
  let timer: NodeJS.Timeout | null = null;
  let round: Promise<void> | null = null;
  let stopped = false;

  const schedule = (delayMs: number) => {
    timer = setTimeout(runRound, delayMs);
    // A repeating chore never keeps the process alive by itself.
    timer.unref();
  };
  function runRound(): void {
    timer = null;
    const startedAt = Date.now();
    round = track(
      task().finally(() => {
        round = null;
        if (!stopped) schedule(Math.max(0, startedAt + intervalMs - Date.now()));
      }),
    );
  }

  if (options.immediately ?? true) runRound();
  else schedule(intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await round;
    },
  };
}
