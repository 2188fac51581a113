/**
 * Pausing a flow stops its side effects without losing what arrives (issue #15). While a
 * flow is paused, webhooks are still acknowledged and recorded, schedule fires too, but
 * their runs are created `held` and the lease never picks them; a run already running
 * finishes its current step and then holds, releasing its lease, to continue later from
 * its checkpoints. Resume queues the held runs again in arrival order and wakes workers.
 */
import type { Db } from '../store/db.ts';
import { countHeldRuns, listPausedFlows, pauseFlow, readFlowPause, resumeFlow, type FlowPause, type HeldCount } from '../store/pause.ts';
import { NotFoundError } from './errors.ts';
import type { RunJournal } from './run-journal.ts';
import type { Clock } from './types.ts';

export interface FlowPauseState {
  paused: boolean;
  pausedAt: number | null;
  pausedBy: string | null;
  /** Runs held while the flow is paused: the events waiting for Resume. */
  waiting: number;
  /** Of those, schedule fires missed while paused (Resume may drop them). */
  missedScheduleFires: number;
}

export interface FlowPauseDeps {
  db: Db;
  clock: Clock;
  /** Called after held runs become queued, so idle workers wake up. */
  onQueued(): void;
}

const missingFlow = (flowId: string) => new NotFoundError(`There is no flow with id ${flowId}; it may have been deleted.`);

export function flowPauseService({ db, clock, onQueued }: FlowPauseDeps) {
  async function state(flowId: string): Promise<FlowPauseState> {
    const pause = await readFlowPause(db, flowId);
    return describe(pause, (await countHeldRuns(db, [flowId])).get(flowId));
  }

  return {
    state,

    async pause(flowId: string, by: string): Promise<FlowPauseState & { heldNow: number }> {
      const result = await db.transaction((tx) => pauseFlow(tx, flowId, by, clock.now()));
      if (!result) throw missingFlow(flowId);
      return { ...(await state(flowId)), heldNow: result.held };
    },

    async resume(flowId: string, by: string, options: { dropScheduleFires?: boolean } = {}) {
      const result = await db.transaction((tx) => resumeFlow(tx, flowId, { by, now: clock.now(), dropScheduleFires: options.dropScheduleFires ?? false }));
      if (!result) throw missingFlow(flowId);
      if (result.released > 0) onQueued();
      return result;
    },

    /** Every paused flow's state, for the flow list (flows absent here run normally). */
    async pausedFlows(): Promise<Map<string, FlowPauseState>> {
      const [paused, held] = await Promise.all([listPausedFlows(db), countHeldRuns(db)]);
      return new Map([...paused].map(([flowId, pause]) => [flowId, describe(pause, held.get(flowId))]));
    },
  };
}

function describe(pause: FlowPause | null, held: HeldCount | undefined): FlowPauseState {
  return {
    paused: pause !== null, pausedAt: pause?.pausedAt ?? null, pausedBy: pause?.pausedBy ?? null,
    waiting: held?.held ?? 0, missedScheduleFires: held?.scheduleFires ?? 0,
  };
}

export type FlowPauseService = ReturnType<typeof flowPauseService>;

/**
 * The worker's check between steps: when the run's flow is paused, the run holds (what it
 * did so far is flushed with it, under its lease fence) and the caller stops walking.
 * One primary-key read, only before a step is actually executed; none when the caller
 * already knows the pause (`known`: the lease read it in its own statement).
 */
export async function holdIfPaused(db: Db, journal: RunJournal, known?: FlowPause | null): Promise<boolean> {
  const pause = known !== undefined ? known : await readFlowPause(db, journal.run.flowId);
  if (!pause) return false;
  journal.event('run.held', null, { by: pause.pausedBy, reason: 'paused' });
  await journal.flush({ ending: { status: 'held' } });
  return true;
}
