/**
 * Alert settings as the form edits them: every field a string or a flag, so inputs stay
 * controlled, and back to the document's shape with empty sections left out.
 */
import type { AlertSettings, AlertSettingsInput } from '../../server/engine/flow/alert-settings.ts';

export interface AlertForm {
  enabled: boolean;
  failed: boolean;
  needsReview: boolean;
  refusals: boolean;
  refusalsOver: string;
  refusalsWithin: string;
  chatUrl: string;
  chatKeyHeader: string;
  emailTo: string;
  smtpHost: string;
  smtpPort: string;
  smtpUser: string;
  smtpPassword: string;
}

export function formFromSettings(settings: AlertSettingsInput | null | undefined): AlertForm {
  const refusals = settings?.on?.webhookRefusals;
  return {
    enabled: settings?.enabled ?? true,
    failed: settings?.on?.failed ?? true,
    needsReview: settings?.on?.needsReview ?? true,
    refusals: refusals !== undefined,
    refusalsOver: String(refusals?.over ?? 10),
    refusalsWithin: refusals?.within ?? '5m',
    chatUrl: settings?.chat?.url ?? '',
    chatKeyHeader: settings?.chat?.keyHeader ?? '',
    emailTo: settings?.email?.to ?? '',
    smtpHost: settings?.email?.smtp.host ?? '',
    smtpPort: String(settings?.email?.smtp.port ?? 587),
    smtpUser: settings?.email?.smtp.user ?? '',
    smtpPassword: settings?.email?.smtp.password ?? '',
  };
}

export function settingsFromForm(form: AlertForm): AlertSettings {
  const trimmed = (text: string) => text.trim();
  const port = trimmed(form.smtpPort);
  return {
    enabled: form.enabled,
    on: {
      failed: form.failed,
      needsReview: form.needsReview,
      ...(form.refusals ? { webhookRefusals: { over: Number(trimmed(form.refusalsOver)), within: trimmed(form.refusalsWithin) } } : {}),
    },
    ...(trimmed(form.chatUrl) || trimmed(form.chatKeyHeader)
      ? { chat: { url: trimmed(form.chatUrl), ...(trimmed(form.chatKeyHeader) ? { keyHeader: trimmed(form.chatKeyHeader) } : {}) } }
      : {}),
    ...(trimmed(form.emailTo) || trimmed(form.smtpHost)
      ? {
          email: {
            to: trimmed(form.emailTo),
            smtp: {
              host: trimmed(form.smtpHost),
              port: /^\d+$/.test(port) ? Number(port) : port,
              ...(trimmed(form.smtpUser) ? { user: trimmed(form.smtpUser) } : {}),
              ...(trimmed(form.smtpPassword) ? { password: trimmed(form.smtpPassword) } : {}),
            },
          },
        }
      : {}),
  };
}
