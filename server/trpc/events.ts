import { z } from 'zod';
import { procedure, router } from './trpc.ts';

export const eventsRouter = router({
  list: procedure
    .input(z.object({ flowId: z.string().min(1), limit: z.number().int().min(1).max(1000).optional() }))
    .query(({ ctx, input }) => ctx.services.inbox.list(input.flowId, input.limit)),
  replay: procedure
    .input(z.object({ eventId: z.string().min(1) }))
    .mutation(({ ctx, input }) => ctx.services.inbox.replay(input.eventId, ctx.user)),
});
