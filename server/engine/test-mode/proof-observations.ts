/**
 * What a proof's test runs did, read back from the database: per run and step, whether
 * the step acted, was stopped as a duplicate, was recovered after a stop, asked for
 * review or failed; and how many times each stand-in was reached per step.
 */
import type { Db } from '../../store/db.ts';
import { getRun } from '../../store/runs.ts';
import { standInEffectsOfRuns } from '../../store/stand-in-effects.ts';
import { listEvents } from '../../store/timeline.ts';
import type { RunRow } from '../types.ts';

export interface StepObservation {
  /** How many times the step was reached: 1, or one per item of a For each. */
  instances: number;
  /** How many of those acted, and how many were stopped as duplicates. */
  actedCount: number;
  duplicateCount: number;
  reached: boolean;
  acted: boolean;
  duplicate: boolean;
  recovered: boolean;
  uncertain: boolean;
  /** The key the step claimed, as rendered. */
  key: string | null;
  failure: string | null;
}

const SETTLED = new Set(['succeeded', 'failed', 'needs_review', 'cancelled']);

/** Waits until every run has settled; a run parked on a long wait counts as settled. */
export async function waitForRuns(db: Db, runIds: readonly string[], limitMs: number, signal?: AbortSignal): Promise<RunRow[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    signal?.throwIfAborted();
    const runs = await Promise.all(runIds.map((id) => getRun(db, id)));
    if (runs.every((run) => run !== undefined && SETTLED.has(run.status))) return runs as RunRow[];
    if (Date.now() > deadline) {
      const stuck = runs.filter((run) => !run || !SETTLED.has(run.status)).map((run) => run?.status ?? 'missing');
      throw new Error(`${stuck.length} test ${stuck.length === 1 ? 'run' : 'runs'} did not finish in ${Math.round(limitMs / 1000)} s (still ${[...new Set(stuck)].join(', ')}); is a worker running?`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function observeSteps(db: Db, runId: string): Promise<Map<string, StepObservation>> {
  const steps = new Map<string, StepObservation>();
  const of = (nodeId: string) => {
    let step = steps.get(nodeId);
    if (!step) steps.set(nodeId, (step = { instances: 0, actedCount: 0, duplicateCount: 0, reached: false, acted: false, duplicate: false, recovered: false, uncertain: false, key: null, failure: null }));
    return step;
  };
  const seen = new Set<string>();
  for (const event of await listEvents(db, runId)) {
    if (!event.nodeId) continue;
    // The items of a For each body (`send@3`) add up under their step (`send`).
    const step = of(baseStepId(event.nodeId));
    if ((event.type === 'step.started' || event.type === 'step.duplicate') && !seen.has(event.nodeId)) {
      seen.add(event.nodeId);
      step.instances += 1;
    }
    if (event.type === 'step.succeeded') step.actedCount += 1;
    if (event.type === 'step.duplicate') step.duplicateCount += 1;
    const data = (event.data ?? {}) as { key?: unknown; message?: unknown };
    if (typeof data.key === 'string') step.key = data.key;
    switch (event.type) {
      case 'step.started': step.reached = true; break;
      case 'step.succeeded': step.reached = true; step.acted = true; break;
      case 'step.duplicate': step.reached = true; step.duplicate = true; break;
      case 'step.recovered': step.recovered = true; break;
      case 'step.uncertain': step.uncertain = true; break;
      case 'step.failed':
      case 'step.key_conflict':
        step.failure = typeof data.message === 'string' ? data.message : 'it failed';
        break;
      default: break;
    }
  }
  return steps;
}

/** How many times the stand-ins were reached, per step, by these runs. */
export async function standInCounts(db: Db, runIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const effect of await standInEffectsOfRuns(db, runIds)) {
    if (effect.nodeId) counts.set(baseStepId(effect.nodeId), (counts.get(baseStepId(effect.nodeId)) ?? 0) + 1);
  }
  return counts;
}

/** The step an item's id belongs to: `send@3` → `send`. */
export const baseStepId = (nodeId: string): string => nodeId.split('@')[0]!;
