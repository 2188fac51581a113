import { z } from 'zod';
import { proofBadges } from '../engine/test-mode/proof-badges.ts';
import { idText, jsonValue, plainText } from './inputs.ts';
import { procedure, router } from './trpc.ts';

const flowId = z.object({ id: idText('The flow id') });
// Names and ids inside a flow become database rows, so a document refuses NUL too.
const document = jsonValue('The flow', { refuseNul: true });

export const flowsRouter = router({
  // Each flow with its proof badge (proof-badges.ts), so the list page needs one round trip.
  list: procedure.query(async ({ ctx }) => {
    const flows = await ctx.services.flows.list();
    const badges = await proofBadges(ctx.services.proofs, flows.map((flow) => flow.id));
    return flows.map((flow) => ({ ...flow, proof: badges[flow.id] ?? null }));
  }),
  get: procedure.input(flowId).query(({ ctx, input }) => ctx.services.flows.get(input.id)),
  create: procedure
    .input(z.object({ name: plainText('The name', 200, 1), document: document.optional() }))
    .mutation(({ ctx, input }) => ctx.services.flows.create(input)),
  saveDraft: procedure
    .input(z.object({ id: idText('The flow id'), document }))
    .mutation(({ ctx, input }) => ctx.services.flows.saveDraft(input.id, input.document)),
  // A publish that changes a side-effect step's key is refused until confirmKeyChanges is set (see keyChanges).
  publish: procedure
    .input(flowId.extend({ confirmKeyChanges: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.flows.publish(input.id, ctx.user, { confirmKeyChanges: input.confirmKeyChanges })),
  /** What publishing the draft would mean for the keys of past events. */
  keyChanges: procedure.input(flowId).query(({ ctx, input }) => ctx.services.flows.keyChanges(input.id)),
  versions: procedure.input(flowId).query(({ ctx, input }) => ctx.services.flows.versions(input.id)),
  import: procedure
    .input(z.object({ document }))
    .mutation(({ ctx, input }) => ctx.services.flows.import(input.document, ctx.user)),
  export: procedure
    .input(z.object({ id: idText('The flow id'), version: z.number().int().positive().max(2_147_483_647, 'There is no version with that number.').optional() }))
    .query(({ ctx, input }) => ctx.services.flows.export(input.id, input.version)),
  /** The document a run ran (a published version, or the snapshot of a tested draft). */
  versionDocument: procedure
    .input(z.object({ versionId: idText('The version id') }))
    .query(({ ctx, input }) => ctx.services.flows.versionDocument(input.versionId)),
  /** Renders a key template against a sample (by name; default: the sample input) of the given (unsaved) document or the draft. */
  previewKey: procedure
    .input(z.object({ id: idText('The flow id'), nodeId: idText('The step id'), template: z.string().max(2000).optional(), document: document.optional(), sample: plainText('The sample name', 200).optional() }))
    .query(({ ctx, input }) => ctx.services.flows.previewKey(input.id, input.nodeId, input.template, input.document, input.sample)),
  // Pause: runs are recorded but held; Resume queues them again in arrival order.
  pauseState: procedure.input(flowId).query(({ ctx, input }) => ctx.services.pause.state(input.id)),
  pausedFlows: procedure.query(async ({ ctx }) => Object.fromEntries(await ctx.services.pause.pausedFlows())),
  pause: procedure.input(flowId).mutation(({ ctx, input }) => ctx.services.pause.pause(input.id, ctx.user)),
  resume: procedure
    .input(flowId.extend({ dropScheduleFires: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.pause.resume(input.id, ctx.user, { dropScheduleFires: input.dropScheduleFires })),
  delete: procedure.input(flowId).mutation(({ ctx, input }) => ctx.services.flows.delete(input.id)),
});
