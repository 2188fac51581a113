import { z } from 'zod';
import { procedure, router } from './trpc.ts';

const flowId = z.object({ id: z.string().min(1) });

export const flowsRouter = router({
  list: procedure.query(({ ctx }) => ctx.services.flows.list()),
  get: procedure.input(flowId).query(({ ctx, input }) => ctx.services.flows.get(input.id)),
  create: procedure
    .input(z.object({ name: z.string().min(1).max(200), document: z.unknown().optional() }))
    .mutation(({ ctx, input }) => ctx.services.flows.create(input)),
  saveDraft: procedure
    .input(z.object({ id: z.string().min(1), document: z.unknown() }))
    .mutation(({ ctx, input }) => ctx.services.flows.saveDraft(input.id, input.document)),
  publish: procedure.input(flowId).mutation(({ ctx, input }) => ctx.services.flows.publish(input.id, ctx.user)),
  versions: procedure.input(flowId).query(({ ctx, input }) => ctx.services.flows.versions(input.id)),
  import: procedure
    .input(z.object({ document: z.unknown() }))
    .mutation(({ ctx, input }) => ctx.services.flows.import(input.document, ctx.user)),
  export: procedure
    .input(z.object({ id: z.string().min(1), version: z.number().int().positive().optional() }))
    .query(({ ctx, input }) => ctx.services.flows.export(input.id, input.version)),
  /** Renders a key template against the sample input of the given (unsaved) document or the draft. */
  previewKey: procedure
    .input(z.object({ id: z.string().min(1), nodeId: z.string().min(1), template: z.string().max(2000).optional(), document: z.unknown().optional() }))
    .query(({ ctx, input }) => ctx.services.flows.previewKey(input.id, input.nodeId, input.template, input.document)),
  delete: procedure.input(flowId).mutation(({ ctx, input }) => ctx.services.flows.delete(input.id)),
});
