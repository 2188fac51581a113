/**
 * Sentences about an earlier decision or an expired key, with their days already worded:
 * the server words a day in UTC and names it (server/engine/key-expiry.ts), a page in its
 * reader's zone. One sentence for both, so the two say the same thing.
 */

/** "Run #12 skipped this on 30 Nov; it is not known whether it happened." */
export function skipSentence(runSeq: number, day: string): string {
  return `Run #${runSeq} skipped this on ${day}; it is not known whether it happened.`;
}

/** Why a run that met a key an earlier run skipped stops for review. */
export function skippedKeyMessage(runSeq: number, day: string): string {
  return `${skipSentence(runSeq, day)} It will not be done on a guess: choose what to do.`;
}

/** "key 4417:invoice expired on 30 Dec; this will act again" */
function expiryWords(key: string, expiredDay: string): string {
  return `key ${key} expired on ${expiredDay}; this will act again`;
}

/** A preview's reason for a step whose key expired, without its action: "key … expired on …; this will act again (it was done by run #12 on 30 Nov)." */
export function expiredStepReason(key: string, expiredDay: string, doneBy: string, doneDay: string): string {
  return `${expiryWords(key, expiredDay)} (it was done by ${doneBy} on ${doneDay}).`;
}
