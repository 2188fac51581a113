/**
 * Group commit for PostgreSQL, where every statement is a round trip, a transaction and a
 * WAL flush of its own, and starting and ending one costs the server more than the few
 * rows a webhook delivery or a run's ending writes. While a few batch statements are on
 * their way, the writes that arrive wait, then go together in the next one; a lone write
 * on a quiet server goes at once (after the current turn of the event loop, so writes
 * made in the same turn share a statement).
 *
 * Nobody's promise resolves before the statement holding its write has returned. A batch
 * that fails is written again one item at a time, so an item the database refuses fails
 * alone and the others are written (a statement is atomic: nothing of the failed one was).
 */

export interface StatementBatcherOptions<T, R> {
  /** Writes the batch in one statement; answers in the items' order. */
  writeBatch(items: readonly T[]): Promise<R[]>;
  /** Writes one item alone: a batch of one, and each item of a batch that failed. */
  writeOne(item: T): Promise<R>;
  /**
   * Items that may not share a statement get the same key. An item waits while another
   * of its key is in the batch being made or in a statement on its way, so items of one
   * key are written one statement after another, in the order they came.
   */
  key?(item: T): string;
  /**
   * Statements on their way at once. One would leave PostgreSQL a single backend (one
   * core) while this process waits for it; a few keep its cores busy and leave the pool's
   * other connections to everything else. (default 3)
   */
  inFlight?: number;
  /** Items per statement at most, so its parameter and answer stay small. (default 100) */
  maxBatch?: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export function statementBatcher<T, R>(options: StatementBatcherOptions<T, R>): (item: T) => Promise<R> {
  const limit = options.inFlight ?? 3;
  const maxBatch = options.maxBatch ?? 100;
  let waiting: Waiting<T, R>[] = [];
  let inFlight = 0;
  let scheduled = false;
  /** Keys of the items in statements on their way. */
  const writing = new Set<string>();

  const schedule = () => {
    if (scheduled || waiting.length === 0 || inFlight >= limit) return;
    scheduled = true;
    setImmediate(send);
  };

  function send(): void {
    scheduled = false;
    while (waiting.length > 0 && inFlight < limit) {
      const batch = take();
      // Everything waiting has its key on the way: the statement that returns sends again.
      if (batch.length === 0) return;
      const keys = options.key ? batch.map((entry) => options.key!(entry.item)) : [];
      for (const key of keys) writing.add(key);
      inFlight++;
      void write(batch).finally(() => {
        for (const key of keys) writing.delete(key);
        inFlight--;
        schedule();
      });
    }
  }

  /** The waiting items in arrival order, up to the bound, each key once and none on its way; the rest wait. */
  function take(): Waiting<T, R>[] {
    const batch: Waiting<T, R>[] = [];
    const later: Waiting<T, R>[] = [];
    const keys = new Set<string>();
    for (const entry of waiting) {
      const key = options.key?.(entry.item);
      if (batch.length >= maxBatch || (key !== undefined && (keys.has(key) || writing.has(key)))) later.push(entry);
      else {
        if (key !== undefined) keys.add(key);
        batch.push(entry);
      }
    }
    waiting = later;
    return batch;
  }

  async function write(batch: Waiting<T, R>[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Waiting<T, R>];
      await options.writeOne(only.item).then(only.resolve, only.reject);
      return;
    }
    let results: R[];
    try {
      results = await options.writeBatch(batch.map((entry) => entry.item));
    } catch {
      await Promise.all(batch.map((entry) => options.writeOne(entry.item).then(entry.resolve, entry.reject)));
      return;
    }
    batch.forEach((entry, index) => entry.resolve(results[index]!));
  }

  return (item) => new Promise<R>((resolve, reject) => {
    waiting.push({ item, resolve, reject });
    schedule();
  });
}
