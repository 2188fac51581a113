/**
 * Delivering one alert message through one channel with the claim protocol of side-effect
 * steps (protocol.ts): the same claims table, the same fences, the same answer classes.
 */
import { readClaim, settleClaim, takeOverClaim, tryClaim } from '../../store/claims.ts';
import type { Db } from '../../store/db.ts';
import type { CrashPoints } from '../crash-points.ts';
import type { EngineMetrics } from '../engine-metrics.ts';
import { errorMessage } from '../errors.ts';
import { fingerprint } from '../step-runtime.ts';
import type { StepOutcome, StepServices } from '../steps/types.ts';
import type { Clock } from '../types.ts';
import type { AlertChannel } from './alert-channels.ts';
import type { AlertText } from './alert-words.ts';

export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  crash: CrashPoints;
  services: StepServices;
  /** How long a claim (and the outbox rows) stay held without a heartbeat. */
  leaseMs: number;
  /** Counts each message delivered, by channel, for /metrics. */
  metrics?: Pick<EngineMetrics, 'alertSent'>;
}

export type HeldClaim = { scope: string; key: string; fence: number };
export type Delivery = { kind: 'sent' } | { kind: 'retry'; error: string } | { kind: 'uncertain'; error: string } | { kind: 'busy' };

// How long an alert's claim is kept: a resend within this time is recognised (default: 30 days).
const CLAIM_KEEP_MS = 30 * 86_400_000;

let messagesSent = 0;

/** Alert messages this process delivered, per channel (for the metrics page). */
export function alertsSentTotal(): number {
  return messagesSent;
}

export function claimScope(flowId: string, channel: AlertChannel): string {
  return channel.name === 'chat' ? `alerts:${flowId}` : `alerts:${flowId}:${channel.name}`;
}

/**
 * One message through one channel, under its claim: insert-or-nothing to win; a claim
 * found is answered from its record, taken over when it failed or its holder died (acting
 * again only for a receiver that honours the key), and settled with the answer's class.
 * `claimed` collects the claims held, for the caller's heartbeat.
 */
export async function deliverAlert(
  deps: DeliveryDeps,
  channel: AlertChannel,
  message: { flowId: string; key: string; text: AlertText; ownerRunId: string },
  claimed: HeldClaim[],
): Promise<Delivery> {
  const { db, clock, crash, leaseMs } = deps;
  const { flowId, key, text, ownerRunId } = message;
  const scope = claimScope(flowId, channel);
  const request = channel.describe(text);
  const now = clock.now();
  const owner = { runId: ownerRunId, nodeId: 'alert', fingerprint: fingerprint(request), request, leaseUntil: now + leaseMs, now };
  let fence = await db.durably((sql) => tryClaim(sql, { scope, key, ...owner, expiresAt: now + CLAIM_KEEP_MS }));
  if (fence === undefined) {
    const claim = await readClaim(db, scope, key);
    if (!claim) return { kind: 'busy' };
    switch (claim.status) {
      case 'succeeded':
        return { kind: 'sent' };
      case 'uncertain':
        return { kind: 'uncertain', error: claim.error ?? 'An earlier try may or may not have arrived.' };
      case 'failed':
        fence = await db.durably((sql) => takeOverClaim(sql, claim, owner));
        break;
      case 'in_progress': {
        // Another sender holds it and is alive: it will settle it.
        if (claim.leaseUntil >= now) return { kind: 'busy' };
        fence = await db.durably((sql) => takeOverClaim(sql, claim, owner));
        if (fence !== undefined && !channel.honoursKey) {
          const error = `The sender stopped after starting to send this alert and before recording it; the ${channel.name === 'email' ? 'mail server' : 'chat'} does not honour keys, so it was not sent again: it may or may not have arrived.`;
          await settleClaim(db, { scope, key, fence }, { status: 'uncertain', error, now });
          return { kind: 'uncertain', error };
        }
        break;
      }
    }
    if (fence === undefined) return { kind: 'busy' };
  }
  const held = { scope, key, fence };
  claimed.push(held);
  crash.check('after-claim', 'alert');
  const abort = new AbortController();
  const outcome: StepOutcome = await channel.send(text, {
    key, runId: ownerRunId, flowId, nodeId: 'alert', now: clock.now, signal: abort.signal, services: deps.services,
  }).catch((error: unknown) => ({ kind: 'ambiguous', message: errorMessage(error) }));
  crash.check('after-act', 'alert');
  const at = clock.now();
  const settle = (status: 'succeeded' | 'failed' | 'uncertain', extra: { output?: unknown; error?: string }) =>
    settleClaim(db, held, { status, ...extra, now: at });
  switch (outcome.kind) {
    case 'succeeded':
      // A newer holder would mean this one's lease ran out mid-send; what it sent stands.
      await settle('succeeded', { output: outcome.output });
      messagesSent++;
      deps.metrics?.alertSent(channel.name);
      return { kind: 'sent' };
    case 'ambiguous':
      if (!channel.honoursKey) {
        await settle('uncertain', { error: outcome.message });
        return { kind: 'uncertain', error: outcome.message };
      }
      await settle('failed', { error: outcome.message });
      return { kind: 'retry', error: outcome.message };
    case 'not_done':
    case 'failed':
      await settle('failed', { error: outcome.message });
      return { kind: 'retry', error: outcome.message };
    case 'wait':
      await settle('failed', { error: outcome.message });
      return { kind: 'retry', error: outcome.message };
  }
}
