/** Prove it: start a proof of a flow's draft, follow its report, and whether the draft and versions are proven. */
import { z } from 'zod';
import { idText, plainText } from './inputs.ts';
import { procedure, router } from './trpc.ts';

const flowId = z.object({ flowId: idText('The flow id') });

export const proofsRouter = router({
  start: procedure
    .input(z.object({ flowId: idText('The flow id'), sample: plainText('The sample name', 200, 1).optional() }))
    .mutation(({ ctx, input }) => ctx.services.proofs.start(input.flowId, { by: ctx.user, ...(input.sample === undefined ? {} : { sample: input.sample }) })),
  get: procedure.input(z.object({ proofId: idText('The proof id') })).query(({ ctx, input }) => ctx.services.proofs.get(input.proofId)),
  list: procedure.input(flowId).query(({ ctx, input }) => ctx.services.proofs.list(input.flowId)),
  status: procedure.input(flowId).query(({ ctx, input }) => ctx.services.proofs.status(input.flowId)),
});
