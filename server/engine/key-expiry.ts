/**
 * Honest key expiry: a key is kept for its time to live, then forgotten (sweeper.ts), so a
 * replay of older work acts again. What was kept of it (store/expired-keys.ts) lets every
 * place that predicts or reports a step say so in the same words: "key 4417:invoice
 * expired on 30 Dec UTC; this will act again".
 */
import type { Sql } from '../store/db.ts';
import { expiredKeyId, findExpiredKeys, type ExpiredKeyRow } from '../store/expired-keys.ts';
import type { ClaimRef } from '../store/types.ts';

export type { ExpiredKeyRow } from '../store/expired-keys.ts';

/**
 * Which of `refs` had their work done under a key that has expired since, so a run that
 * meets the key now acts again; keyed by `expiredKeyId(ref)`. One query for any number of
 * refs (a preview of one run or a recovery of thousands).
 */
export async function expiredKeysAmong(sql: Sql, refs: readonly ClaimRef[], now: number): Promise<Map<string, ExpiredKeyRow>> {
  const rows = await findExpiredKeys(sql, refs, now);
  return new Map(rows.map((row) => [expiredKeyId(row), row]));
}

export { expiredKeyId };

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const DAY_AND_YEAR = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/**
 * "30 Dec UTC", with the year when it is not the current one ("30 Dec 2025 UTC"). A day the
 * server writes into words is read later, anywhere — kept in a run's message, printed by the
 * command line, sent to a script — so it names its zone; a page that knows its reader's
 * zone words the same moment itself, from the time beside the words (PreviewExpiry,
 * PreviewSkip, the timeline's events).
 */
export function dayWords(at: number, now: number): string {
  const sameYear = new Date(at).getUTCFullYear() === new Date(now).getUTCFullYear();
  return `${(sameYear ? DAY : DAY_AND_YEAR).format(at)} UTC`;
}
