import { DURATION_HINT, isDuration, parseDuration } from '../../../core/duration.ts';
import { RETRY_LATER } from '../../../core/retry-later.ts';
import type { FlowProblem } from './problems.ts';

/**
 * Checks of a flow's `settings` (DESIGN.md §3), worded for the person who set them. Each
 * problem names the setting as the editor shows it.
 */
export function checkSettings(settings: { retryFailedRuns?: readonly string[] } | undefined): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const delays = settings?.retryFailedRuns ?? [];
  if (delays.length > RETRY_LATER.maxDelays) {
    problems.push({
      severity: 'error', code: 'retry_later_too_many', field: 'settings.retryFailedRuns',
      message: `Try failed runs again is set to ${delays.length} delays; at most ${RETRY_LATER.maxDelays} are allowed. A run that still fails after that many tries needs a person.`,
    });
  }
  delays.forEach((delay, index) => {
    const field = `settings.retryFailedRuns[${index}]`;
    if (!isDuration(delay)) {
      problems.push({ severity: 'error', code: 'retry_later_delay', field, message: `Try failed runs again: "${delay}" is not a length of time. Write ${DURATION_HINT}.` });
      return;
    }
    const ms = parseDuration(delay);
    if (ms < RETRY_LATER.minDelayMs || ms > RETRY_LATER.maxDelayMs) {
      problems.push({ severity: 'error', code: 'retry_later_delay', field, message: `Try failed runs again: wait ${delay} is outside what is allowed (from 10s to 7d).` });
    }
  });
  return problems;
}
