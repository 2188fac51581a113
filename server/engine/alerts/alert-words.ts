/**
 * What an alert says: one line a person reads first (the email's subject), then the
 * reason and a link. Chat apps render *bold*; mail shows the stars as they are.
 */
import type { AlertOutboxRow } from '../../store/alerts.ts';

export interface AlertText {
  subject: string;
  text: string;
}

const STATE_WORDS: Record<string, string> = { failed: 'failed', needs_review: 'needs review' };
const STATE_PLURAL: Record<string, string> = { failed: 'failed', needs_review: 'need review' };

/** "5 minutes", "1 minute", "40 seconds": how long ago the oldest alert of a batch was recorded. */
export function spanWords(ms: number): string {
  if (ms < 60_000) {
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  const minutes = Math.ceil(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** One run's alert: "A run of *Order paid* failed", the reason, the link to the run. */
export function runAlertText(row: AlertOutboxRow, flowName: string, baseUrl: string): AlertText {
  const subject = `A run of *${flowName}* ${STATE_WORDS[row.kind] ?? row.kind}`;
  const reason = row.message ? `\n${row.message}` : '';
  return { subject, text: `${subject}.${reason}\n${joinUrl(baseUrl, `/runs/${encodeURIComponent(row.runId ?? '')}`)}` };
}

/** Many runs of one flow at once: one message with the runs list filtered to the flow and state. */
export function gatheredAlertText(rows: readonly AlertOutboxRow[], flowName: string, baseUrl: string, now: number): AlertText {
  const kind = rows[0]?.kind ?? 'failed';
  const oldest = Math.min(...rows.map((row) => row.createdAt));
  const subject = `${rows.length} runs of *${flowName}* ${STATE_PLURAL[kind] ?? kind} in the last ${spanWords(now - oldest)}`;
  const link = joinUrl(baseUrl, `/runs?flow=${encodeURIComponent(rows[0]?.flowId ?? '')}&status=${encodeURIComponent(kind)}`);
  return { subject, text: `${subject}.\n${link}` };
}

/** Refused webhook deliveries over the flow's threshold. */
export function refusalAlertText(row: AlertOutboxRow, flowName: string, baseUrl: string): AlertText {
  const subject = `Webhooks of *${flowName}* were refused: ${row.message ?? ''}`.trim();
  return { subject, text: `${subject}\n${joinUrl(baseUrl, `/flows/${encodeURIComponent(row.flowId)}/inbox`)}` };
}
