import { z } from 'zod';
import { RUN_STATUSES } from '../engine/types.ts';
import { idText, jsonValue, plainText, runNumber } from './inputs.ts';
import { procedure, router } from './trpc.ts';

const runId = z.object({ runId: idText('The run id') });
const eventId = z.number().int().min(0);
// Optional filters: empty text means "any".
const flowFilter = plainText('The flow id', 200).optional();

export const runsRouter = router({
  start: procedure
    .input(z.object({ flowId: idText('The flow id'), input: jsonValue('The input').optional() }))
    .mutation(({ ctx, input }) => ctx.services.runs.start({ ...input, by: ctx.user })),
  list: procedure
    .input(z.object({
      flowId: flowFilter,
      status: z.enum(RUN_STATUSES).optional(),
      search: plainText('The search', 300).optional(),
      cursor: runNumber.optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }))
    .query(({ ctx, input }) => ctx.services.runs.list(input)),
  get: procedure.input(runId).query(({ ctx, input }) => ctx.services.runs.view(input.runId)),
  // `cursor` is the id of the last event held, as paged queries name it; `afterId` is the same for scripts.
  timeline: procedure
    .input(z.object({
      runId: idText('The run id'),
      afterId: eventId.optional(),
      cursor: eventId.nullish(),
      limit: z.number().int().min(1).max(5000).optional(),
    }))
    .query(({ ctx, input }) => ctx.services.runs.timeline(input.runId, input.cursor ?? input.afterId, input.limit)),
  changes: procedure
    .input(z.object({ runId: idText('The run id'), afterId: eventId }))
    .query(({ ctx, input }) => ctx.services.runs.changes(input.runId, input.afterId)),
  rerunPreview: procedure.input(runId).query(({ ctx, input }) => ctx.services.runs.rerunPreview(input.runId)),
  bulkPreview: procedure
    .input(z.object({ flowId: flowFilter, status: z.enum(['failed', 'needs_review']) }))
    .query(({ ctx, input }) => ctx.services.runs.bulkPreview(input)),
  bulkRerun: procedure
    .input(z.object({ flowId: flowFilter, status: z.enum(['failed', 'needs_review']) }))
    .mutation(({ ctx, input }) => ctx.services.runs.bulkRerun(input, ctx.user)),
  rerun: procedure.input(runId).mutation(({ ctx, input }) => ctx.services.runs.rerun(input.runId, ctx.user)),
  replay: procedure.input(runId).mutation(({ ctx, input }) => ctx.services.runs.replay(input.runId, ctx.user)),
  cancel: procedure.input(runId).mutation(({ ctx, input }) => ctx.services.runs.cancel(input.runId, ctx.user)),
  resolve: procedure
    .input(z.object({ runId: idText('The run id'), nodeId: idText('The step id'), decision: z.enum(['happened', 'do-it', 'skip']) }))
    .mutation(({ ctx, input }) => ctx.services.runs.resolve(input.runId, input.nodeId, input.decision, ctx.user)),
});
