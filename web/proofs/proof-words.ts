/**
 * Words for proofs, shared by the report page, the flow list's badge and the editor:
 * "v4 proven on 30 Nov", "Checking: Ten at once…".
 */
import type { inferRouterOutputs } from '@trpc/server';
import type { ProofCheckId } from '../../server/engine/test-mode/proof-report.ts';
import type { AppRouter } from '../../server/trpc/router.ts';
import { dateFormat } from '../lib/date-format.ts';

export type ProofReport = inferRouterOutputs<AppRouter>['proofs']['get'];
export type ProofBadge = NonNullable<inferRouterOutputs<AppRouter>['flows']['list'][number]['proof']>;

/** The checks' titles as the report names them (PROOF_CHECK_TITLES; proof-words.test.ts keeps them equal). */
export const CHECK_TITLES: Record<ProofCheckId, string> = {
  twice: 'Twice in a row',
  concurrent: 'Ten at once',
  killed: 'Stopped hard between the action and its record',
  webhook: 'A delivered webhook sent again',
  keys: 'Keys checked on the samples',
};

export const CHECK_ORDER = Object.keys(CHECK_TITLES) as ProofCheckId[];

const formatDay = dateFormat({ day: 'numeric', month: 'short' });

/** "30 Nov" (in the reader's own order of day and month). */
export const proofDay = (at: number): string => formatDay(at);

/** The check being run, by its title; anything unknown as it came. */
export function checkTitle(current: string): string {
  return CHECK_TITLES[current as ProofCheckId] ?? current;
}

export function badgeWords(badge: ProofBadge): string {
  switch (badge.kind) {
    case 'live-proven':
      return `v${badge.version} proven on ${proofDay(badge.at)}`;
    case 'draft-proven':
      return 'Draft proven';
    case 'changed':
      return 'Changed since proof';
    case 'failed':
      return 'Proof failed';
  }
}

/** The report's headline: under way, proven, or not, in one sentence. */
export function headline(report: ProofReport): string {
  if (report.status === 'running') {
    const current = report.progress.current;
    return current ? `Checking: ${checkTitle(current)}… (${Math.min(report.progress.done + 1, report.progress.total)} of ${report.progress.total})` : 'Starting the proof…';
  }
  if (report.error) return `The proof could not be carried out: ${report.error}`;
  const failed = report.checks.filter((check) => !check.passed).length;
  if (report.status === 'passed') return `Proven: every check passed (${report.checks.length}).`;
  return `Not proven: ${failed} of ${report.checks.length} ${report.checks.length === 1 ? 'check' : 'checks'} failed.`;
}

export const proofPath = (flowId: string, proofId: string) => `/flows/${encodeURIComponent(flowId)}/proofs/${encodeURIComponent(proofId)}`;
