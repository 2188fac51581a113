/**
 * When a flow last changed, as the rest of the app shows a change (the versions list, the
 * Secrets page): the reader's own locale, medium date and short time ("Dec 4, 2026,
 * 8:50 AM" in American English), with the exact moment in the element.
 */
import { dateFormat } from '../lib/date-format.ts';

const changedAt = dateFormat({ dateStyle: 'medium', timeStyle: 'short' });

export function ChangedAt({ at }: { at: number }) {
  return <time dateTime={new Date(at).toISOString()}>{changedAt(at)}</time>;
}
