import { z } from 'zod';
import { VERSION_CHOICES } from '../engine/version-choice.ts';
import { idText, jsonValue } from './inputs.ts';
import { procedure, router } from './trpc.ts';

export const eventsRouter = router({
  list: procedure
    .input(z.object({ flowId: idText('The flow id'), limit: z.number().int().min(1).max(1000).optional() }))
    .query(({ ctx, input }) => ctx.services.inbox.list(input.flowId, input.limit)),
  replay: procedure
    .input(z.object({ eventId: idText('The delivery id'), version: z.enum(VERSION_CHOICES).optional(), input: jsonValue('The input').optional() }))
    .mutation(({ ctx, input }) => ctx.services.inbox.replay(input.eventId, ctx.user, input.version, input.input === undefined ? undefined : { body: input.input })),
});
