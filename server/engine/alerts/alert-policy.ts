/**
 * Which alert settings are in force for a flow: its own (`settings.alerts` of its latest
 * published version) when it has them, else the stored default. Settings turned off, or
 * that cannot be read, send nothing.
 */
import { alertSettingsSchema, type AlertSettings } from '../flow/alert-settings.ts';

export function parseAlertSettings(value: unknown): AlertSettings | null {
  if (value === undefined || value === null) return null;
  const parsed = alertSettingsSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function flowAlerts(document: string | null): { has: boolean; settings: AlertSettings | null } {
  if (!document) return { has: false, settings: null };
  try {
    const alerts = (JSON.parse(document) as { settings?: { alerts?: unknown } }).settings?.alerts;
    return alerts === undefined ? { has: false, settings: null } : { has: true, settings: parseAlertSettings(alerts) };
  } catch {
    return { has: false, settings: null };
  }
}

export function alertSettingsFor(document: string | null, defaults: AlertSettings | null): AlertSettings | null {
  const own = flowAlerts(document);
  const settings = own.has ? own.settings : defaults;
  return settings && settings.enabled && (settings.chat || settings.email) ? settings : null;
}

export function wantsAlert(settings: AlertSettings, kind: string): boolean {
  if (kind === 'failed') return settings.on.failed;
  if (kind === 'needs_review') return settings.on.needsReview;
  if (kind === 'webhook_refusals') return settings.on.webhookRefusals !== undefined;
  return false;
}
