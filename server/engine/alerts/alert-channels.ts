/**
 * Where an alert goes: a chat webhook (Slack-compatible, as the message.post step) or an
 * email (SMTP, as the email.send step). Each reuses its step's sending and answer
 * classification, so an alert is as honest as a step about what may have arrived.
 */
import { renderTemplate } from '../../../core/templates/render.ts';
import type { AlertSettings } from '../flow/alert-settings.ts';
import { sendEmail, splitAddresses } from '../steps/email-send.ts';
import { toHttpAction } from '../steps/message-post.ts';
import { performHttp } from '../steps/http-request.ts';
import type { StepIO, StepOutcome } from '../steps/types.ts';
import type { AlertText } from './alert-words.ts';

export interface AlertChannel {
  name: 'chat' | 'email';
  /** The receiver drops a repeated key: after a crash mid-send, sending again is safe. */
  honoursKey: boolean;
  /** What is sent, secrets aside: the claim's request and fingerprint. */
  describe(text: AlertText): Record<string, unknown>;
  send(text: AlertText, io: StepIO): Promise<StepOutcome>;
}

/** The longest an alert waits for its receiver (default: 10 s, less when claim leases are shorter). */
export function alertTimeoutMs(claimLeaseMs: number): number {
  return Math.max(200, Math.min(10_000, Math.floor(claimLeaseMs * 0.8)));
}

/**
 * The channels of some settings, with `{{ secrets.NAME }}` filled in. A secret that is not
 * stored throws, in words naming it; the sender shows that as the delivery's problem.
 */
export function alertChannels(settings: AlertSettings, secrets: Record<string, string>, timeoutMs: number): AlertChannel[] {
  const fill = (text: string) => renderTemplate(text, { trigger: { body: null, headers: {} }, steps: {}, secrets });
  const channels: AlertChannel[] = [];
  const { chat, email } = settings;
  if (chat) {
    const url = fill(chat.url).trim();
    channels.push({
      name: 'chat',
      honoursKey: chat.keyHeader !== undefined,
      describe: (text) => ({ channel: 'chat', text: text.text }),
      send: (text, io) => performHttp(toHttpAction({ url, text: text.text, timeoutMs, keyHeader: chat.keyHeader }), io),
    });
  }
  if (email) {
    const port = Number(fill(String(email.smtp.port)).trim());
    const to = splitAddresses(fill(email.to));
    const from = email.from ? fill(email.from) : 'Onceflow <alerts@onceflow.invalid>';
    const smtp = {
      host: fill(email.smtp.host).trim(), port, secure: email.smtp.secure ?? port === 465,
      ...(email.smtp.user ? { user: fill(email.smtp.user) } : {}),
      ...(email.smtp.password ? { password: fill(email.smtp.password) } : {}),
    };
    channels.push({
      name: 'email',
      // A mail server cannot honour a key (as for email.send): a send cut short is uncertain.
      honoursKey: false,
      describe: (text) => ({ channel: 'email', to, subject: plain(text.subject), text: text.text }),
      send: (text, io) => sendEmail({ smtp, from, to, cc: [], subject: plain(text.subject), text: plain(text.text), html: undefined, timeoutMs }, io),
    });
  }
  return channels;
}

/** Mail shows no chat formatting. */
function plain(text: string): string {
  return text.replace(/\*([^*\n]+)\*/g, '"$1"');
}
