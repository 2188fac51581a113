/**
 * What a person decided about a step whose outcome was unknown, as far as later runs with
 * the same key need to know. Only "It happened" and "It did not happen — do it now" settle
 * a key; "Skip" lets one run go on without the step and leaves the key uncertain, with a
 * record of who skipped it where, so the next run that meets the key stops and says so
 * instead of acting on a guess.
 */
import { skipSentence, skippedKeyMessage } from '../../core/review-words.ts';
import { dayWords } from './key-expiry.ts';

/** Kept in the uncertain claim's `output` after a Skip. */
export interface SkipRecord {
  decision: 'skip';
  runId: string;
  runSeq: number;
  by: string;
  /** ISO time of the decision. */
  at: string;
}

export function skipRecordOf(output: unknown): SkipRecord | undefined {
  const value = output as Partial<SkipRecord> | null | undefined;
  if (!value || value.decision !== 'skip' || typeof value.runId !== 'string' || typeof value.at !== 'string') return undefined;
  return { decision: 'skip', runId: value.runId, runSeq: Number(value.runSeq), by: String(value.by ?? 'someone'), at: value.at };
}

/** "Run #12 skipped this on 30 Nov UTC; it is not known whether it happened." (the day as key-expiry.ts words it) */
export function describeSkip(record: SkipRecord, now: number): string {
  return skipSentence(record.runSeq, dayWords(Date.parse(record.at), now));
}

/** Why a run that met an uncertain claim stops for review, naming the earlier decision. */
export function uncertainClaimMessage(claim: { ownerRunId: string; output: unknown }, runId: string, now: number): string {
  const skipped = skipRecordOf(claim.output);
  if (skipped) return skippedKeyMessage(skipped.runSeq, dayWords(Date.parse(skipped.at), now));
  return claim.ownerRunId === runId
    ? 'It is not known whether this step happened; choose what to do.'
    : `It is not known whether run ${claim.ownerRunId} did this already; its review decides.`;
}
