/**
 * The alert outbox: an alert is recorded in the very transaction that ends its run, so a
 * failure is never committed without its alert, nor an alert without its failure. The
 * sender (sender.ts) delivers it later; whether the flow wants it is decided there, from
 * the settings in force when it goes out.
 */
import { newId } from '../../ids.ts';
import { queueAlert } from '../../store/alerts.ts';
import type { Sql } from '../../store/db.ts';
import type { RunRow } from '../types.ts';

export type RunAlertState = 'failed' | 'needs_review';

/**
 * How long a new alert waits before it may go out (default: 1 s), so that runs failing
 * together are gathered into one message instead of the first going alone.
 */
export const ALERT_HOLD_MS = 1_000;

/** The key of a run's alert: once per run and state, whatever its attempts. */
export function runAlertKey(runId: string, state: RunAlertState): string {
  return `${runId}:${state}`;
}

/**
 * Called by the run's ending, inside its transaction. Test runs never alert, and neither
 * does a failure that an automatic rerun will try again (`rerunScheduled`): only the last
 * failure of a run tells someone.
 */
export async function queueRunAlert(
  tx: Sql,
  run: Pick<RunRow, 'id' | 'flowId' | 'testScope'>,
  ending: { state: RunAlertState; message: string | null; now: number; rerunScheduled?: boolean },
): Promise<void> {
  if (run.testScope !== null || ending.rerunScheduled) return;
  await queueAlert(tx, {
    id: newId('alr'), flowId: run.flowId, runId: run.id, kind: ending.state, alertKey: runAlertKey(run.id, ending.state),
    message: ending.message, dueAt: ending.now + ALERT_HOLD_MS, now: ending.now,
  });
}
