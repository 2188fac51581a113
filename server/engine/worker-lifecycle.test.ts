/** The worker's modes, its count of background work, and the heartbeat's non-overlapping repeat. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { repeatEvery, WORKER_MODES, WorkerLifecycle, type WorkerMode } from './worker-lifecycle.ts';

const ALLOWED: [WorkerMode, WorkerMode][] = [
  ['idle', 'starting'], ['idle', 'stopped'], ['starting', 'running'], ['starting', 'stopping'], ['running', 'stopping'], ['stopping', 'stopped'],
];

/** A lifecycle already in `mode`, reached along the allowed arrows. */
function lifecycleIn(mode: WorkerMode): WorkerLifecycle {
  const lifecycle = new WorkerLifecycle();
  const path: Record<WorkerMode, WorkerMode[]> = {
    idle: [], starting: ['starting'], running: ['starting', 'running'], stopping: ['starting', 'running', 'stopping'], stopped: ['stopped'],
  };
  for (const next of path[mode]) lifecycle.enter(next);
  return lifecycle;
}

describe('worker modes', () => {
  it('start idle and move idle → starting → running → stopping → stopped', () => {
    const lifecycle = new WorkerLifecycle();
    expect(lifecycle.mode).toBe('idle');
    for (const next of ['starting', 'running', 'stopping', 'stopped'] as const) {
      lifecycle.enter(next);
      expect(lifecycle.mode).toBe(next);
    }
  });

  it('allow exactly the arrows of the diagram; any other move throws naming both modes', () => {
    for (const from of WORKER_MODES) {
      for (const to of WORKER_MODES) {
        const lifecycle = lifecycleIn(from);
        if (ALLOWED.some(([a, b]) => a === from && b === to)) {
          lifecycle.enter(to);
          expect(lifecycle.mode).toBe(to);
        } else {
          expect(() => lifecycle.enter(to), `${from} → ${to}`).toThrow(`The worker cannot go from ${from} to ${to}.`);
          expect(lifecycle.mode).toBe(from);
        }
      }
    }
  });

  it('say when a mode, or one after it, has been reached', async () => {
    const lifecycle = new WorkerLifecycle();
    const reached: WorkerMode[] = [];
    for (const mode of WORKER_MODES) void lifecycle.reached(mode).then(() => reached.push(mode));
    lifecycle.enter('starting');
    await Promise.resolve();
    expect(reached).toEqual(['idle', 'starting']);
    // A worker stopped before it ran has passed running too: nobody waits for it forever.
    lifecycle.enter('stopping');
    lifecycle.enter('stopped');
    await lifecycle.reached('running');
    await Promise.resolve();
    expect(reached).toEqual(['idle', 'starting', 'running', 'stopping', 'stopped']);
  });
});

describe('background work', () => {
  it('is counted until it settles, and settled() waits for work added while it waits', async () => {
    const lifecycle = lifecycleIn('running');
    let finishFirst!: () => void;
    let finishSecond!: () => void;
    void lifecycle.background(new Promise<void>((resolve) => (finishFirst = resolve)));
    expect(lifecycle.inFlight).toBe(1);
    let settled = false;
    const waiting = lifecycle.settled().then(() => (settled = true));
    // The first piece of work starts a second before it ends, as a heartbeat schedules the next.
    void lifecycle.background(new Promise<void>((resolve) => (finishSecond = resolve)));
    finishFirst();
    await Promise.resolve();
    await Promise.resolve();
    expect(lifecycle.inFlight).toBe(1);
    expect(settled).toBe(false);
    finishSecond();
    await waiting;
    expect(lifecycle.inFlight).toBe(0);
  });

  it('counts work that fails as settled, and leaves its error to its owner', async () => {
    const lifecycle = lifecycleIn('running');
    const failing = lifecycle.background(Promise.reject(new Error('database gone')));
    await expect(failing).rejects.toThrow('database gone');
    await lifecycle.settled();
    expect(lifecycle.inFlight).toBe(0);
  });

  it('is refused once the worker is stopped', () => {
    const lifecycle = lifecycleIn('stopped');
    expect(() => lifecycle.background(Promise.resolve())).toThrow('The worker is stopped; it cannot start more work.');
  });
});

describe('repeatEvery', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never runs two rounds at once, and keeps its cadence when a round is shorter than the interval', async () => {
    vi.useFakeTimers();
    const rounds: { start: number; end: number }[] = [];
    let running = 0;
    let most = 0;
    // Rounds of 30 ms, then three of 250 ms (longer than the 100 ms interval), then 30 ms again.
    const lengths = [30, 250, 250, 250, 30, 30];
    const repeater = repeatEvery(100, async () => {
      running += 1;
      most = Math.max(most, running);
      const start = Date.now();
      await new Promise((resolve) => setTimeout(resolve, lengths[rounds.length] ?? 30));
      rounds.push({ start, end: Date.now() });
      running -= 1;
    });
    await vi.advanceTimersByTimeAsync(1200);
    await repeater.stop();
    expect(most).toBe(1);
    expect(rounds.length).toBeGreaterThanOrEqual(lengths.length);
    // Each round starts one interval after the previous one started, or as soon as it ended
    // if it ran longer (a timer of 0 ms fires after 1 ms).
    for (let index = 1; index < rounds.length; index++) {
      const previous = rounds[index - 1]!;
      const lateBy = rounds[index]!.start - Math.max(previous.start + 100, previous.end);
      expect(lateBy).toBeGreaterThanOrEqual(0);
      expect(lateBy).toBeLessThanOrEqual(1);
    }
    expect(rounds[1]!.start - rounds[0]!.start).toBe(100);
    expect(rounds[2]!.start).toBeGreaterThanOrEqual(rounds[1]!.end);
  });

  it('stop() cancels the next round and waits for the one in flight', async () => {
    vi.useFakeTimers();
    let rounds = 0;
    let finished = 0;
    const repeater = repeatEvery(100, async () => {
      rounds += 1;
      await new Promise((resolve) => setTimeout(resolve, 40));
      finished += 1;
    });
    await vi.advanceTimersByTimeAsync(110);
    expect(rounds).toBe(2);
    let stopped = false;
    const stopping = repeater.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(20);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    await stopping;
    expect(finished).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(rounds).toBe(2);
  });

  it('can wait one interval before its first round, and counts each round as background work', async () => {
    vi.useFakeTimers();
    const lifecycle = lifecycleIn('running');
    let rounds = 0;
    const repeater = repeatEvery(100, async () => {
      rounds += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }, { immediately: false, track: (work) => lifecycle.background(work) });
    await vi.advanceTimersByTimeAsync(99);
    expect(rounds).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(rounds).toBe(1);
    expect(lifecycle.inFlight).toBe(1);
    await vi.advanceTimersByTimeAsync(10);
    expect(lifecycle.inFlight).toBe(0);
    await repeater.stop();
  });
});
