import { z } from 'zod';
import { UserError } from '../engine/errors.ts';
import { MAX_LATENCY_MS, RECEIVERS } from '../sandbox/ledger.ts';
import type { Sandbox } from '../sandbox/plugin.ts';
import type { Services } from '../services.ts';
import { procedure, router } from './trpc.ts';

const receiver = z.enum(RECEIVERS);

// `log` is named only so any Services fits, whether or not this server has a sandbox.
function sandboxOf(services: Pick<Services, 'log'> & { sandbox?: Sandbox }): Sandbox {
  if (!services.sandbox) {
    throw new UserError(
      'The sandbox is off on this server. It is on when Onceflow listens on 127.0.0.1; elsewhere start it with ONCEFLOW_SANDBOX=1.',
    );
  }
  return services.sandbox;
}

export const sandboxRouter = router({
  /** Per receiver: arrivals, effects and counts per key or reference; plus the latest arrivals. */
  ledger: procedure
    .input(z.object({ receiver: receiver.optional(), limit: z.number().int().min(0).max(5000).optional() }).optional())
    .query(({ ctx, input }) => {
      const sandbox = sandboxOf(ctx.services);
      const entries = sandbox.ledger.entries(input?.receiver);
      const limit = input?.limit ?? 200;
      return {
        receivers: input?.receiver ? [sandbox.ledger.summary(input.receiver)] : sandbox.ledger.summaries(),
        total: entries.length,
        // The latest ones, oldest first.
        entries: limit === 0 ? [] : entries.slice(-limit),
        smtp: sandbox.smtp ?? null,
      };
    }),
  reset: procedure
    .input(z.object({ receiver: receiver.optional() }).optional())
    .mutation(({ ctx, input }) => {
      sandboxOf(ctx.services).reset(input?.receiver);
      return { reset: input?.receiver ?? 'all' };
    }),
  settings: procedure.query(({ ctx }) => {
    const sandbox = sandboxOf(ctx.services);
    return { receivers: sandbox.settings.all(), smtp: sandbox.smtp ?? null };
  }),
  configure: procedure
    .input(z.object({
      receiver,
      latencyMs: z.number().int().min(0, 'The latency cannot be negative.').max(MAX_LATENCY_MS, 'The latency can be at most 60 seconds (60000 ms).').optional(),
      failureRate: z.number().min(0, 'The failure rate is a share between 0 and 1.').max(1, 'The failure rate is a share between 0 and 1.').optional(),
      dropAnswer: z.boolean().optional(),
    }))
    .mutation(({ ctx, input }) => {
      const { receiver: name, ...patch } = input;
      return { receiver: name, settings: sandboxOf(ctx.services).settings.configure(name, patch) };
    }),
});
