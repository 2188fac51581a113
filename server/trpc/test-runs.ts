/** Test runs from the editor and `onceflow run --test`: the draft, apart from live keys, against the stand-ins. */
import { z } from 'zod';
import { idText, jsonValue } from './inputs.ts';
import { procedure, router } from './trpc.ts';

const flowId = z.object({ flowId: idText('The flow id') });

export const testRunsRouter = router({
  start: procedure
    .input(z.object({
      flowId: idText('The flow id'),
      input: jsonValue('The input').optional(),
      // The person confirmed the services realServices named.
      realServices: z.boolean().optional(),
    }))
    .mutation(({ ctx, input }) => ctx.services.tests.start({
      flowId: input.flowId,
      ...(input.input === undefined ? {} : { input: input.input }),
      targets: input.realServices ? 'real-services' : 'stand-ins',
      by: ctx.user,
    })),
  realServices: procedure.input(flowId).query(({ ctx, input }) => ctx.services.tests.realServices(input.flowId)),
  standInEffects: procedure
    .input(z.object({ runId: idText('The run id') }))
    .query(({ ctx, input }) => ctx.services.tests.standInEffects([input.runId])),
});
