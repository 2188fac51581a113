import { z } from 'zod';
import { procedure, router } from './trpc.ts';

const id = z.string().min(1).max(200);

export const alertsRouter = router({
  /** The alerts of every flow that sets none of its own. */
  defaults: procedure.query(({ ctx }) => ctx.services.alerts.defaults()),
  saveDefaults: procedure
    .input(z.object({ settings: z.unknown() }))
    .mutation(({ ctx, input }) => ctx.services.alerts.saveDefaults(input.settings, ctx.user)),
  /** Alerts whose delivery failed, for a banner: all, one flow's, or one run's. */
  undelivered: procedure
    .input(z.object({ flowId: id.optional(), runId: id.optional() }).default({}))
    .query(({ ctx, input }) => ctx.services.alerts.undelivered(input)),
  ofRun: procedure.input(z.object({ runId: id })).query(({ ctx, input }) => ctx.services.alerts.ofRun(input.runId)),
  retryNow: procedure
    .input(z.object({ ids: z.array(id).min(1).max(200) }))
    .mutation(({ ctx, input }) => ctx.services.alerts.retryNow(input.ids)),
});
