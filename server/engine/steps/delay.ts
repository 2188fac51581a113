import { parseDuration } from '../../../core/duration.ts';
import { NonRetriableError } from '../errors.ts';
import type { StepKind } from './types.ts';

interface DelayPlan {
  /** Milliseconds to wait from the first time the step is reached, or an absolute time. */
  forMs?: number;
  until?: number;
}

/**
 * delay: a durable wait. The first time it is reached its wake-up time is checkpointed and
 * the run is parked in the database (no timer held in memory); when the run is leased
 * again after that time, the same checkpoint says the wait is over.
 */
export const delayStep: StepKind<'delay', DelayPlan> = {
  type: 'delay',
  prepare(step, render) {
    if (step.data.until) {
      const text = render.text(step.data.until);
      const until = Date.parse(text);
      if (Number.isNaN(until)) throw new NonRetriableError(`The delay's end "${text}" is not a date and time.`);
      return { until };
    }
    return { forMs: parseDuration(render.text(step.data.for ?? '0s')) };
  },
  describe: (plan) => ({ ...plan }),
  async execute(plan, io) {
    const previous = io.previous?.status === 'waiting' ? (io.previous.output as { until?: number } | null) : null;
    const until = previous?.until ?? plan.until ?? io.now() + (plan.forMs ?? 0);
    if (io.services.skipDelays && until > io.now()) {
      return { kind: 'succeeded', output: { waitedUntil: new Date(io.now()).toISOString(), skippedInTest: true, wouldWaitUntil: new Date(until).toISOString() } };
    }
    if (until <= io.now()) return { kind: 'succeeded', output: { waitedUntil: new Date(until).toISOString() } };
    return { kind: 'wait', until, output: { until }, message: `Waiting until ${new Date(until).toISOString()}.` };
  },
  honoursKey: () => false,
};
