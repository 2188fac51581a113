/**
 * The one road a draft takes to the server. Every save — the pause after typing, Publish,
 * Run and Export, leaving the editor, hiding the page — hands its draft to the queue with
 * the editor revision it was taken at (revisions only grow while the page is open). For
 * each flow:
 * - one save is on its way at a time, so the server receives drafts in the order sent;
 * - while one travels, only the newest waiting draft is kept: a newer one takes its place,
 *   and whoever asked for the older one is answered when the newer one is saved (it holds
 *   their changes too);
 * - a draft no newer than one already saved, sent or waiting is never sent: its caller is
 *   answered by that one.
 * So the server's draft only moves forward, whatever order the saves were asked for in.
 */

/** Sends one draft; resolves once the server has stored it. */
export type SendDraft<D> = (key: string, draft: D, revision: number) => Promise<void>;

export interface SaveQueue<D> {
  /** Resolves when this draft, or a newer one of the same flow, is saved; rejects when that save failed. */
  save(key: string, revision: number, draft: D): Promise<void>;
  /** True while a draft of this flow is on its way or waiting to go. */
  isSaving(key: string): boolean;
  /** Called whenever a flow starts or stops saving (shape of React's `useSyncExternalStore`). */
  subscribe(listener: () => void): () => void;
}

interface Attempt<D> {
  revision: number;
  draft: D;
  done: Promise<void>;
  resolve(value: void | Promise<void>): void;
  reject(error: unknown): void;
}

interface Lane<D> {
  sending: Attempt<D> | null;
  waiting: Attempt<D> | null;
  /** The newest revision the server confirmed. */
  saved: number;
}

export function createSaveQueue<D>(send: SendDraft<D>): SaveQueue<D> {
  const lanes = new Map<string, Lane<D>>();
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };

  function laneOf(key: string): Lane<D> {
    let lane = lanes.get(key);
    if (!lane) {
      lane = { sending: null, waiting: null, saved: -Infinity };
      lanes.set(key, lane);
    }
    return lane;
  }

  function start(key: string, lane: Lane<D>, attempt: Attempt<D>): void {
    lane.sending = attempt;
    // A send that throws before returning its promise counts as a failed save.
    new Promise<void>((resolve) => resolve(send(key, attempt.draft, attempt.revision))).then(
      () => {
        lane.saved = Math.max(lane.saved, attempt.revision);
        attempt.resolve();
        next(key, lane);
      },
      (error: unknown) => {
        // A newer draft still to come carries these changes too: its outcome answers for both.
        if (lane.waiting) attempt.resolve(lane.waiting.done);
        else attempt.reject(error);
        next(key, lane);
      },
    );
  }

  function next(key: string, lane: Lane<D>): void {
    const waiting = lane.waiting;
    lane.sending = null;
    lane.waiting = null;
    if (waiting) start(key, lane, waiting);
    else notify();
  }

  return {
    save(key, revision, draft) {
      const lane = laneOf(key);
      if (revision <= lane.saved) return Promise.resolve();
      if (lane.sending && revision <= lane.sending.revision) return lane.sending.done;
      if (lane.waiting) {
        if (revision > lane.waiting.revision) Object.assign(lane.waiting, { revision, draft });
        return lane.waiting.done;
      }
      const attempt = newAttempt(revision, draft);
      if (lane.sending) {
        lane.waiting = attempt;
      } else {
        start(key, lane, attempt);
        notify();
      }
      return attempt.done;
    },
    isSaving: (key) => lanes.get(key)?.sending != null,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function newAttempt<D>(revision: number, draft: D): Attempt<D> {
  let resolve!: Attempt<D>['resolve'];
  let reject!: Attempt<D>['reject'];
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers may drop the answer (an autosave nobody waits for); a failure must not go unobserved.
  done.catch(() => undefined);
  return { revision, draft, done, resolve, reject };
}
