/**
 * What people see and set of alerts: the stored default for every flow, and the alerts
 * whose delivery failed (shown on the runs page and the run page, not only in a log).
 */
import type { Db } from '../../store/db.ts';
import { alertsOfRun, readAlertDefaults, retryAlertsNow, saveAlertDefaults, undeliveredAlerts, type AlertOutboxRow } from '../../store/alerts.ts';
import { UserError } from '../errors.ts';
import { alertSettingsSchema, type AlertSettings } from '../flow/alert-settings.ts';
import { checkAlerts } from '../flow/validate-settings.ts';
import type { Clock } from '../types.ts';

export interface AlertView {
  id: string;
  flowId: string;
  runId: string | null;
  /** failed, needs_review or webhook_refusals. */
  kind: string;
  /** pending (retrying), sending, sent, uncertain, dropped or given_up. */
  status: string;
  attempts: number;
  /** Why the last delivery did not go through. */
  problem: string | null;
  /** When the next try is, while it is retried. */
  nextTryAt: number | null;
  createdAt: number;
  sentAt: number | null;
}

function view(row: AlertOutboxRow): AlertView {
  return {
    id: row.id, flowId: row.flowId, runId: row.runId, kind: row.kind, status: row.status, attempts: row.attempts,
    problem: row.lastError, nextTryAt: row.status === 'pending' ? row.nextAttemptAt : null, createdAt: row.createdAt, sentAt: row.sentAt,
  };
}

export function alertService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /** The default alerts (null when none are stored: flows without their own send nothing). */
    async defaults(): Promise<{ settings: AlertSettings | null; updatedAt: number | null; updatedBy: string | null }> {
      const row = await readAlertDefaults(db);
      const parsed = row ? alertSettingsSchema.safeParse(row.settings) : undefined;
      return { settings: parsed?.success ? parsed.data : null, updatedAt: row?.updatedAt ?? null, updatedBy: row?.updatedBy ?? null };
    },

    /** Checks and stores the default alerts; every problem is named at once, and nothing is stored with one. */
    async saveDefaults(input: unknown, by: string): Promise<AlertSettings> {
      const parsed = alertSettingsSchema.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new UserError(`The default alerts are not valid: ${issue?.path.join('.')} ${issue?.message ?? ''}`.trim());
      }
      const problems = checkAlerts(parsed.data, 'alerts');
      if (problems.length > 0) throw new UserError(problems.map((problem) => problem.message).join(' '));
      await saveAlertDefaults(db, parsed.data, by, clock.now());
      return parsed.data;
    },

    /** Alerts that could not be sent (retrying, uncertain or given up), newest first. */
    async undelivered(filter: { flowId?: string; runId?: string } = {}): Promise<AlertView[]> {
      return (await undeliveredAlerts(db, filter, 50)).map(view);
    },

    /** Every alert recorded about a run, sent or not. */
    async ofRun(runId: string): Promise<AlertView[]> {
      return (await alertsOfRun(db, runId)).map(view);
    },

    /** Sends alerts that failed again at the sender's next round. */
    async retryNow(ids: string[]): Promise<{ queued: number }> {
      return { queued: await retryAlertsNow(db, ids, clock.now()) };
    },
  };
}

export type AlertService = ReturnType<typeof alertService>;
