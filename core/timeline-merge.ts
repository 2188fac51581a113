/**
 * A run's timeline is its stored events, in id order, and the repeats of its event, which
 * are listed on the delivery's row rather than stored as events (server/store/inbound-repeats.ts).
 * Both are in time order; this merges them by time, a stored event first at equal times.
 */
export function mergeByTime<T extends { createdAt: number }>(events: readonly T[], repeats: readonly T[]): T[] {
  if (repeats.length === 0) return events as T[];
  const merged: T[] = [];
  let next = 0;
  for (const event of events) {
    while (next < repeats.length && repeats[next]!.createdAt < event.createdAt) merged.push(repeats[next++]!);
    merged.push(event);
  }
  while (next < repeats.length) merged.push(repeats[next++]!);
  return merged;
}
