/** The checks of a flow's alert settings: every problem named at once, in the Alerts panel's words. */
import { describe, expect, it } from 'vitest';
import { validateFlow } from './validate.ts';
import { invoiceFlow } from '../../testing/engine-harness.ts';

const withAlerts = (alerts: unknown) => ({ ...invoiceFlow('http://127.0.0.1:9'), settings: { alerts } });
const messages = (alerts: unknown) => validateFlow(withAlerts(alerts)).problems.map((problem) => `${problem.field}: ${problem.message}`);

describe('alert settings', () => {
  it('accepts a chat webhook from the secret store and an email with a password secret', () => {
    const result = validateFlow(withAlerts({
      on: { failed: true, needsReview: false, webhookRefusals: { over: 10, within: '5m' } },
      chat: { url: '{{ secrets.SLACK_URL }}', keyHeader: 'Idempotency-Key' },
      email: { to: 'ops@example.test, lead@example.test', smtp: { host: 'smtp.example.test', port: 587, user: 'robot', password: '{{ secrets.SMTP_PASSWORD }}' } },
    }));
    expect(result.problems).toEqual([]);
    expect(result.flow?.settings?.alerts).toMatchObject({ enabled: true, on: { failed: true, needsReview: false } });
  });

  it('names every problem at once', () => {
    expect(messages({
      on: { webhookRefusals: { over: -1, within: '5 minutes' } },
      chat: { url: 'hooks.slack.com/x', keyHeader: 'bad header' },
      email: { to: 'nobody', smtp: { host: ' ', port: 70000 } },
    })).toEqual([
      'settings.alerts.email.to: Alerts by email: "nobody" is not an email address.',
      'settings.alerts.email.smtp.host: Alerts by email: write the mail server (SMTP host) that sends them.',
      'settings.alerts.email.smtp.port: Alerts by email: the mail server port "70000" is not a number between 1 and 65535.',
      'settings.alerts.chat.url: Alerts in chat: "hooks.slack.com/x" is not a web address; paste the chat\'s incoming webhook address (https://…), or {{ secrets.NAME }} when it is stored as a secret.',
      'settings.alerts.chat.keyHeader: Alerts in chat: "bad header" cannot be a header name; use letters, digits and dashes, like Idempotency-Key.',
      'settings.alerts.on.webhookRefusals.over: Alerts on refused webhooks: "-1" is not a whole number of deliveries (0 or more).',
      'settings.alerts.on.webhookRefusals.within: Alerts on refused webhooks: "5 minutes" is not a length of time. Write a number followed by ms, s, m, h or d, like 90s, 15m, 2h or 3d.',
    ]);
  });

  it('asks for someone to tell, unless alerts are off', () => {
    expect(messages({})).toEqual(['settings.alerts.email: Alerts are on but name nobody to tell: add an email address or a chat webhook, or turn alerts off.']);
    expect(messages({ enabled: false })).toEqual([]);
  });
});
