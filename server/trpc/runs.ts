import { tracked } from '@trpc/server';
import { z } from 'zod';
import { RUN_STATUSES } from '../engine/types.ts';
import { VERSION_CHOICES } from '../engine/version-choice.ts';
import { idText, jsonValue, plainText, runNumber } from './inputs.ts';
import { procedure, router } from './trpc.ts';

const runId = z.object({ runId: idText('The run id') });
// Which version a rerun or replay uses: the latest published (default when newer) or the one the run ran.
const version = z.enum(VERSION_CHOICES).optional();
const runOnVersion = z.object({ runId: idText('The run id'), version });
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
      // The search box's words: a run number, id or event id, `key …`, `path = value` or `failed at …`.
      search: plainText('The search', 300).optional(),
      key: plainText('The key', 1000).optional(),
      input: z.object({ path: plainText('The input path', 200), value: plainText('The input value', 200) }).optional(),
      failedStep: plainText('The step', 200).optional(),
      cursor: runNumber.optional(),
      limit: z.number().int().min(1).max(500).optional(),
      // Test runs stay out of history unless asked for.
      mode: z.enum(['live', 'test', 'all']).optional(),
    }))
    .query(({ ctx, input }) => ctx.services.runs.list(input)),
  get: procedure.input(runId).query(({ ctx, input }) => ctx.services.runs.view(input.runId)),
  // One page of a For each step's items, each with its own steps.
  loopItems: procedure
    .input(z.object({ runId: idText('The run id'), loopId: idText('The step id'), offset: z.number().int().min(0).max(1_000_000).default(0), limit: z.number().int().min(1).max(100).default(20) }))
    .query(({ ctx, input }) => ctx.services.runs.loopItems(input.runId, input.loopId, input.offset, input.limit)),
  // `cursor` is the id of the last event held, as paged queries name it; `afterId` is the same for scripts.
  timeline: procedure
    .input(z.object({
      runId: idText('The run id'),
      afterId: eventId.optional(),
      cursor: eventId.nullish(),
      limit: z.number().int().min(1).max(5000).optional(),
    }))
    .query(({ ctx, input }) => ctx.services.runs.timeline(input.runId, input.cursor ?? input.afterId, input.limit)),
  // Live changes over server-sent events. Each message carries the id of the last event
  // sent, so a reconnecting browser resumes after it (`lastEventId`) instead of starting over.
  watch: procedure
    .input(z.object({ runId: idText('The run id'), lastEventId: z.string().regex(/^\d{1,15}$/, 'The last event id must be a number.').nullish() }))
    .subscription(async function* ({ ctx, input, signal }) {
      const changes = ctx.services.runs.watch(input.runId, Number(input.lastEventId ?? 0), signal ?? new AbortController().signal);
      for await (const { status, events, lastId, repeatsCounted } of changes) {
        yield tracked(String(lastId), ctx.services.db.masker.deep({ status, events, repeatsCounted }));
      }
    }),
  replayPreview: procedure
    .input(z.object({ runId: idText('The run id'), version, input: jsonValue('The input').optional() }))
    .query(({ ctx, input }) => ctx.services.runs.replayPreview(input.runId, input.version, input.input === undefined ? undefined : { body: input.input })),
  versionChoice: procedure.input(runId).query(({ ctx, input }) => ctx.services.runs.versionChoice(input.runId)),
  rerunPreview: procedure.input(runOnVersion).query(({ ctx, input }) => ctx.services.runs.rerunPreview(input.runId, input.version)),
  bulkPreview: procedure
    .input(z.object({ flowId: flowFilter, status: z.enum(['failed', 'needs_review']), version }))
    .query(({ ctx, input }) => ctx.services.runs.bulkPreview(input)),
  bulkRerun: procedure
    .input(z.object({ flowId: flowFilter, status: z.enum(['failed', 'needs_review']), version }))
    .mutation(({ ctx, input }) => ctx.services.runs.bulkRerun(input, ctx.user)),
  rerun: procedure.input(runOnVersion).mutation(({ ctx, input }) => ctx.services.runs.rerun(input.runId, ctx.user, input.version)),
  // `input`: the trigger body edited for this replay ("replay with changes"); without it, the run's own.
  replay: procedure
    .input(z.object({ runId: idText('The run id'), version, input: jsonValue('The input').optional() }))
    .mutation(({ ctx, input }) => ctx.services.runs.replay(input.runId, ctx.user, input.version, input.input === undefined ? undefined : { body: input.input })),
  cancel: procedure.input(runId).mutation(({ ctx, input }) => ctx.services.runs.cancel(input.runId, ctx.user)),
  resolve: procedure
    .input(z.object({ runId: idText('The run id'), nodeId: idText('The step id'), decision: z.enum(['happened', 'do-it', 'skip']) }))
    .mutation(({ ctx, input }) => ctx.services.runs.resolve(input.runId, input.nodeId, input.decision, ctx.user)),
});
