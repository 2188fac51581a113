import { z } from 'zod';
import { RUN_STATUSES } from '../engine/types.ts';
import { procedure, router } from './trpc.ts';

const runId = z.object({ runId: z.string().min(1) });

export const runsRouter = router({
  start: procedure
    .input(z.object({ flowId: z.string().min(1), input: z.unknown().optional() }))
    .mutation(({ ctx, input }) => ctx.services.runs.start({ ...input, by: ctx.user })),
  list: procedure
    .input(z.object({
      flowId: z.string().optional(),
      status: z.enum(RUN_STATUSES).optional(),
      search: z.string().max(300).optional(),
      cursor: z.number().int().optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }))
    .query(({ ctx, input }) => ctx.services.runs.list(input)),
  get: procedure.input(runId).query(({ ctx, input }) => ctx.services.runs.get(input.runId)),
  timeline: procedure
    .input(z.object({ runId: z.string().min(1), afterId: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(5000).optional() }))
    .query(({ ctx, input }) => ctx.services.runs.timeline(input.runId, input.afterId, input.limit)),
  rerunPreview: procedure.input(runId).query(({ ctx, input }) => ctx.services.runs.rerunPreview(input.runId)),
  bulkPreview: procedure
    .input(z.object({ flowId: z.string().optional(), status: z.enum(['failed', 'needs_review']) }))
    .query(({ ctx, input }) => ctx.services.runs.bulkPreview(input)),
  bulkRerun: procedure
    .input(z.object({ flowId: z.string().optional(), status: z.enum(['failed', 'needs_review']) }))
    .mutation(({ ctx, input }) => ctx.services.runs.bulkRerun(input, ctx.user)),
  rerun: procedure.input(runId).mutation(({ ctx, input }) => ctx.services.runs.rerun(input.runId, ctx.user)),
  replay: procedure.input(runId).mutation(({ ctx, input }) => ctx.services.runs.replay(input.runId, ctx.user)),
  cancel: procedure.input(runId).mutation(({ ctx, input }) => ctx.services.runs.cancel(input.runId, ctx.user)),
  resolve: procedure
    .input(z.object({ runId: z.string().min(1), nodeId: z.string().min(1), decision: z.enum(['happened', 'do-it', 'skip']) }))
    .mutation(({ ctx, input }) => ctx.services.runs.resolve(input.runId, input.nodeId, input.decision, ctx.user)),
});
