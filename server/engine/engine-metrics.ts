/**
 * What the engine counts as it works, for /metrics. The engine only calls this interface;
 * the process decides how the counts are kept and exposed (server/metrics/), so no
 * metrics library reaches the engine. Counts are this process's own.
 */

/** How a side-effect step (or any step, for skipped) ended in a committed write. */
export type StepOutcomeLabel = 'acted' | 'duplicate_stopped' | 'skipped' | 'recovered' | 'uncertain';

/** What became of a webhook delivery. */
export type DeliveryResult = 'accepted' | 'duplicate' | 'refused';

/** Why a delivery was refused: a short, fixed set, so each reason is one series. */
export type RefusalReason =
  | 'unknown_hook' | 'bad_body' | 'unsupported_type' | 'too_large' | 'missing_secret' | 'bad_signature' | 'bad_event_id' | 'unreadable';

export interface EngineMetrics {
  stepOutcome(outcome: StepOutcomeLabel): void;
  /** Seconds one claim statement took (the round trip every side effect pays before acting). */
  claimLatency(seconds: number): void;
  /** A run whose worker's lease lapsed was leased again, or an abandoned claim was taken over. */
  leaseTakeOver(kind: 'run' | 'claim', count?: number): void;
  delivery(result: DeliveryResult, reason?: RefusalReason): void;
  alertSent(kind: string): void;
}

export const NO_ENGINE_METRICS: EngineMetrics = {
  stepOutcome: () => {},
  claimLatency: () => {},
  leaseTakeOver: () => {},
  delivery: () => {},
  alertSent: () => {},
};

const OUTCOME_OF_EVENT: Partial<Record<string, StepOutcomeLabel>> = {
  'step.duplicate': 'duplicate_stopped',
  'step.skipped': 'skipped',
  'step.recovered': 'recovered',
  'step.uncertain': 'uncertain',
};

/**
 * Counts the step outcomes among timeline events that were just committed. A success
 * counts as acted only when a side effect acted under its claim (its event says `via`).
 */
export function countStepOutcomes(metrics: EngineMetrics, events: readonly { type: string; data: Record<string, unknown> | null }[]): void {
  for (const event of events) {
    const outcome = event.type === 'step.succeeded' ? (event.data?.via ? 'acted' : undefined) : OUTCOME_OF_EVENT[event.type];
    if (outcome) metrics.stepOutcome(outcome);
  }
}
