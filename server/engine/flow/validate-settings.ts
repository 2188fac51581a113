import { DURATION_HINT, isDuration, parseDuration } from '../../../core/duration.ts';
import { RETRY_LATER } from '../../../core/retry-later.ts';
import type { FlowProblem } from './problems.ts';
import type { AlertSettings } from './alert-settings.ts';

/**
 * Checks of a flow's `settings` (DESIGN.md §3), worded for the person who set them. Each
 * problem names the setting as the editor shows it.
 */
export function checkSettings(settings: { retryFailedRuns?: readonly string[]; alerts?: AlertSettings } | undefined): FlowProblem[] {
  const problems: FlowProblem[] = settings?.alerts ? checkAlerts(settings.alerts, 'settings.alerts') : [];
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

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TEMPLATE = /\{\{/;
// Refusals are counted over at least a minute and at most a day.
const REFUSAL_WINDOW = { minMs: 60_000, maxMs: 86_400_000 } as const;

/**
 * Checks of alert settings (a flow's `settings.alerts` or the stored default), named as
 * the Alerts panel shows them. `field` is where they sit ("settings.alerts" or "alerts").
 */
export function checkAlerts(alerts: AlertSettings, field: string): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const problem = (code: string, at: string, message: string) => problems.push({ severity: 'error', code, field: `${field}.${at}`, message });
  if (!alerts.enabled) return problems;
  if (!alerts.email && !alerts.chat) {
    problem('alerts_nobody', 'email', 'Alerts are on but name nobody to tell: add an email address or a chat webhook, or turn alerts off.');
  }
  const { email, chat } = alerts;
  if (email) {
    const to = email.to.split(/[,;]/).map((part) => part.trim()).filter(Boolean);
    if (to.length === 0) problem('alerts_email_to', 'email.to', 'Alerts by email: write who receives them (an email address).');
    for (const address of to) {
      if (!TEMPLATE.test(address) && !/@/.test(address)) problem('alerts_email_to', 'email.to', `Alerts by email: "${address}" is not an email address.`);
    }
    if (!email.smtp.host.trim()) problem('alerts_smtp_host', 'email.smtp.host', 'Alerts by email: write the mail server (SMTP host) that sends them.');
    const port = String(email.smtp.port).trim();
    if (!TEMPLATE.test(port) && !(/^\d+$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
      problem('alerts_smtp_port', 'email.smtp.port', `Alerts by email: the mail server port "${port}" is not a number between 1 and 65535.`);
    }
  }
  if (chat) {
    const url = chat.url.trim();
    if (!TEMPLATE.test(url) && !(URL.canParse(url) && /^https?:/i.test(url))) {
      problem('alerts_chat_url', 'chat.url', `Alerts in chat: "${url}" is not a web address; paste the chat's incoming webhook address (https://…), or {{ secrets.NAME }} when it is stored as a secret.`);
    }
    if (chat.keyHeader !== undefined && !HEADER_NAME.test(chat.keyHeader)) {
      problem('alerts_chat_key_header', 'chat.keyHeader', `Alerts in chat: "${chat.keyHeader}" cannot be a header name; use letters, digits and dashes, like Idempotency-Key.`);
    }
  }
  const refusals = alerts.on.webhookRefusals;
  if (refusals) {
    if (!Number.isInteger(refusals.over) || refusals.over < 0) {
      problem('alerts_refusals_over', 'on.webhookRefusals.over', `Alerts on refused webhooks: "${refusals.over}" is not a whole number of deliveries (0 or more).`);
    }
    if (!isDuration(refusals.within)) {
      problem('alerts_refusals_within', 'on.webhookRefusals.within', `Alerts on refused webhooks: "${refusals.within}" is not a length of time. Write ${DURATION_HINT}.`);
    } else {
      const ms = parseDuration(refusals.within);
      if (ms < REFUSAL_WINDOW.minMs || ms > REFUSAL_WINDOW.maxMs) {
        problem('alerts_refusals_within', 'on.webhookRefusals.within', `Alerts on refused webhooks: counting over ${refusals.within} is outside what is allowed (from 1m to 1d).`);
      }
    }
  }
  return problems;
}
