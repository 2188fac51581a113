/**
 * The alert sender: beside every worker, it leases due rows of the alert outbox, gathers
 * many alerts of one flow into one message, and delivers each message through the claim
 * protocol of side-effect steps (scope `alerts:<flowId>`, or `alerts:<flowId>:email`; key:
 * the alert's own key `<runId>:<state>`, or the gathered message's). So a sender killed
 * mid-send and restarted never sends twice to a receiver that honours keys, and marks the
 * alert uncertain otherwise; a delivery that fails is retried with backoff and shown.
 */
import type { EngineMetrics } from '../engine-metrics.ts';
import type { Logger } from 'pino';
import { isDuration, parseDuration } from '../../../core/duration.ts';
import { newId } from '../../ids.ts';
import {
  dropAlerts, dueAlerts, extendAlertLease, flowsForAlerts, latestAlertAt, leaseAlerts, pendingAlertsOf, queueAlert,
  readAlertDefaults, recentAlerts, flowsWithRefusals, countRefusals, runStatuses, settleAlerts, stampBatch, type AlertOutboxRow,
} from '../../store/alerts.ts';
import { extendClaimLease } from '../../store/claims.ts';
import type { Db } from '../../store/db.ts';
import type { CrashPoints } from '../crash-points.ts';
import { errorMessage } from '../errors.ts';
import type { AlertSettings } from '../flow/alert-settings.ts';
import type { StepServices } from '../steps/types.ts';
import type { Clock } from '../types.ts';
import { repeatEvery, type Repeater } from '../worker-lifecycle.ts';
import { alertChannels, alertTimeoutMs, type AlertChannel } from './alert-channels.ts';
import { deliverAlert, type Delivery, type HeldClaim } from './alert-delivery.ts';
import { alertSettingsFor, parseAlertSettings, wantsAlert } from './alert-policy.ts';
import { gatheredAlertText, refusalAlertText, runAlertText } from './alert-words.ts';

export interface AlertSenderDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  crash: CrashPoints;
  services: StepServices;
  secrets(): Promise<Record<string, string>>;
  /** Where people open the app: links in alerts start here. */
  baseUrl(): string;
  claimLeaseMs: number;
  /** Counts each alert message sent (engine-metrics.ts). */
  metrics?: Pick<EngineMetrics, 'alertSent'>;
}

export interface AlertSenderOptions {
  /** How often the outbox is read (default: 500 ms). */
  everyMs?: number;
  /** The first retry of a failed delivery waits this long, doubling each time up to 30 minutes (default: 30 s). */
  retryBaseMs?: number;
  /** Tries before an alert is given up (default: 10); it stays shown until someone sends it again. */
  maxAttempts?: number;
  /**
   * More alerts than this for one flow and state within `gatherWindowMs` (default: 3 in
   * 5 minutes) become one message, sent at most every `gatherEveryMs` (default: 1 minute)
   * while they keep coming.
   */
  gatherOver?: number;
  gatherWindowMs?: number;
  gatherEveryMs?: number;
  /** How often refused webhook deliveries are counted (default: 5 s). */
  refusalCheckMs?: number;
}

// Refusals are counted over at most a day (validate-settings.ts).
const LONGEST_REFUSAL_WINDOW_MS = 86_400_000;
const MAX_RETRY_DELAY_MS = 30 * 60_000;

export { alertsSentTotal } from './alert-delivery.ts';

export function createAlertSender(deps: AlertSenderDeps, options: AlertSenderOptions = {}) {
  const { db, clock, log, crash } = deps;
  const everyMs = options.everyMs ?? 500;
  const retryBaseMs = options.retryBaseMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 10;
  const gatherOver = options.gatherOver ?? 3;
  const gatherWindowMs = options.gatherWindowMs ?? 5 * 60_000;
  const gatherEveryMs = options.gatherEveryMs ?? 60_000;
  const refusalCheckMs = options.refusalCheckMs ?? 5_000;
  const leaseMs = deps.claimLeaseMs;
  const timeoutMs = alertTimeoutMs(leaseMs);
  const delivery = { db, clock, crash, services: deps.services, leaseMs, ...(deps.metrics ? { metrics: deps.metrics } : {}) };
  let lastRefusalCheck = 0;
  let repeater: Repeater | null = null;

  async function settingsOf(flowIds: string[]) {
    const [flows, defaults] = await Promise.all([flowsForAlerts(db, flowIds), readAlertDefaults(db)]);
    const fallback = parseAlertSettings(defaults?.settings);
    return new Map(flows.map((flow) => [flow.flowId, { name: flow.name, settings: alertSettingsFor(flow.document, fallback) }]));
  }

  /** Records an alert when a flow's refused deliveries went over its threshold; once per window. */
  async function checkRefusals(now: number): Promise<void> {
    if (now - lastRefusalCheck < refusalCheckMs) return;
    lastRefusalCheck = now;
    const refused = await flowsWithRefusals(db, now - LONGEST_REFUSAL_WINDOW_MS);
    if (refused.length === 0) return;
    const flows = await settingsOf(refused);
    for (const flowId of refused) {
      const rule = flows.get(flowId)?.settings?.on.webhookRefusals;
      if (!rule || !isDuration(rule.within)) continue;
      const windowMs = parseDuration(rule.within);
      const count = await countRefusals(db, flowId, now - windowMs);
      if (count <= rule.over) continue;
      const latest = await latestAlertAt(db, flowId, 'webhook_refusals');
      if (latest !== undefined && latest > now - windowMs) continue;
      await queueAlert(db, {
        id: newId('alr'), flowId, runId: null, kind: 'webhook_refusals', alertKey: `refusals:${Math.floor(now / windowMs)}`,
        message: `${count} deliveries refused in the last ${rule.within} (more than ${rule.over}).`, dueAt: now, now,
      });
    }
  }

  /** Leases a batch of rows, names its message, sends it on every channel and settles the rows. */
  async function sendBatch(rows: AlertOutboxRow[], flowName: string, settings: AlertSettings, resumedKey: string | null): Promise<void> {
    const now = clock.now();
    const first = rows[0]!;
    let batchKey = resumedKey;
    const ids = await db.transaction(async (tx) => {
      const taken = await leaseAlerts(tx, rows.map((row) => row.id), now + leaseMs, now);
      if (taken.length > 0 && batchKey === null) {
        batchKey = taken.length === 1 ? rows.find((row) => row.id === taken[0])!.alertKey : `gathered:${first.kind}:${[...taken].sort()[0]}+${taken.length}`;
        await stampBatch(tx, taken, batchKey);
      }
      return taken;
    });
    if (ids.length === 0 || batchKey === null) return;
    const key: string = batchKey;
    const batch = rows.filter((row) => ids.includes(row.id));
    const base = deps.baseUrl();
    const text = first.kind === 'webhook_refusals' ? refusalAlertText(first, flowName, base)
      : batch.length === 1 ? runAlertText(batch[0]!, flowName, base) : gatheredAlertText(batch, flowName, base, now);

    // Leases of the rows and the claims are kept alive while a send takes long.
    const claimed: HeldClaim[] = [];
    const beat = setInterval(() => {
      const until = clock.now() + leaseMs;
      void extendAlertLease(db, ids, until).catch(() => {});
      for (const claim of claimed) void extendClaimLease(db, claim, until).catch(() => {});
    }, Math.max(50, Math.floor(leaseMs / 3)));
    beat.unref();
    const results: Delivery[] = [];
    try {
      let channels: AlertChannel[];
      try {
        channels = alertChannels(settings, await deps.secrets(), timeoutMs);
      } catch (error) {
        channels = [];
        results.push({ kind: 'retry', error: `The alert settings cannot be used: ${errorMessage(error)}` });
      }
      for (const channel of channels) {
        results.push(await deliverAlert(delivery, channel, { flowId: first.flowId, key, text, ownerRunId: first.runId ?? `flow:${first.flowId}` }, claimed).catch((error: unknown) => ({ kind: 'retry' as const, error: errorMessage(error) })));
      }
    } finally {
      clearInterval(beat);
    }
    await settleBatch(ids, batch, results);
  }

  async function settleBatch(ids: string[], batch: AlertOutboxRow[], results: Delivery[]): Promise<void> {
    const now = clock.now();
    const retry = results.find((result): result is Extract<Delivery, { kind: 'retry' }> => result.kind === 'retry');
    const uncertain = results.find((result): result is Extract<Delivery, { kind: 'uncertain' }> => result.kind === 'uncertain');
    if (results.some((result) => result.kind === 'busy')) {
      // Held by a live sender elsewhere: look again soon, without counting a try.
      await settleAlerts(db, ids, { status: 'pending', lastError: null, tried: false, nextAttemptAt: now + 1000, now });
    } else if (retry) {
      const attempts = Math.max(...batch.map((row) => row.attempts)) + 1;
      const delay = Math.min(MAX_RETRY_DELAY_MS, retryBaseMs * 2 ** (attempts - 1));
      const status = attempts >= maxAttempts ? 'given_up' : 'pending';
      await settleAlerts(db, ids, { status, lastError: retry.error, tried: true, nextAttemptAt: now + delay, now });
      log.warn({ flowId: batch[0]?.flowId, attempts, error: retry.error }, 'an alert could not be sent');
    } else if (uncertain) {
      await settleAlerts(db, ids, { status: 'uncertain', lastError: uncertain.error, tried: true, nextAttemptAt: now, now });
    } else {
      await settleAlerts(db, ids, { status: 'sent', lastError: null, tried: true, nextAttemptAt: now, now });
    }
  }

  /** One round: refusal counts, then every due alert (and its flow's other pending ones). */
  async function round(): Promise<void> {
    const now = clock.now();
    await checkRefusals(now);
    const due = await dueAlerts(db, now, 500);
    if (due.length === 0) return;
    const flowIds = [...new Set(due.map((row) => row.flowId))];
    const dueIds = new Set(due.map((row) => row.id));
    // Pending alerts of the same flows not yet due go with them, so a burst makes one message.
    const waiting = (await pendingAlertsOf(db, flowIds, 2000)).filter((row) => !dueIds.has(row.id));
    const rows = [...due, ...waiting];
    const flows = await settingsOf(flowIds);
    const statuses = await runStatuses(db, rows.filter((row) => row.batchKey === null && row.runId !== null).map((row) => row.runId!));
    const drop: string[] = [];
    const resumed = new Map<string, AlertOutboxRow[]>();
    const fresh = new Map<string, AlertOutboxRow[]>();
    for (const row of rows) {
      if (row.batchKey !== null) {
        // A message begun by a sender that died: sent again under the same key, whatever the settings now.
        const group = `${row.flowId}\n${row.batchKey}`;
        resumed.set(group, [...(resumed.get(group) ?? []), row]);
        continue;
      }
      const settings = flows.get(row.flowId)?.settings;
      // A run rerun since its alert was recorded is no longer in that state: nothing to tell.
      const stale = row.runId !== null && statuses.get(row.runId) !== row.kind;
      if (!settings || !wantsAlert(settings, row.kind) || stale) {
        drop.push(row.id);
        continue;
      }
      const group = row.kind === 'webhook_refusals' ? `${row.flowId}\n${row.id}` : `${row.flowId}\n${row.kind}`;
      fresh.set(group, [...(fresh.get(group) ?? []), row]);
    }
    await dropAlerts(db, drop, now);
    for (const [group, batch] of resumed) {
      const flow = flows.get(batch[0]!.flowId);
      const settings = flow?.settings;
      if (!settings) {
        await settleAlerts(db, batch.map((row) => row.id), { status: 'dropped', lastError: null, tried: false, nextAttemptAt: now, now });
        continue;
      }
      await sendBatch(batch, flow.name, settings, group.split('\n')[1]!);
    }
    for (const batch of fresh.values()) {
      if (!batch.some((row) => dueIds.has(row.id))) continue;
      const first = batch[0]!;
      const flow = flows.get(first.flowId)!;
      if (first.kind === 'webhook_refusals') {
        await sendBatch(batch, flow.name, flow.settings!, null);
        continue;
      }
      // Many alerts of one flow within the window: gathered, and sent at most every
      // `gatherEveryMs` while they keep coming; the ones between wait for the next message.
      const recent = await recentAlerts(db, first.flowId, first.kind, now - gatherWindowMs);
      if (recent.count > gatherOver) {
        if (recent.lastSentAt !== null && now - recent.lastSentAt < gatherEveryMs) continue;
        await sendBatch(batch, flow.name, flow.settings!, null);
      } else {
        for (const row of batch) await sendBatch([row], flow.name, flow.settings!, null);
      }
    }
  }

  return {
    round,
    start() {
      repeater = repeatEvery(everyMs, async () => {
        await round().catch((error: unknown) => log.warn({ err: error }, 'sending alerts failed; trying again'));
      }, { immediately: false });
    },
    async stop() {
      await repeater?.stop();
    },
  };
}

export type AlertSender = ReturnType<typeof createAlertSender>;
