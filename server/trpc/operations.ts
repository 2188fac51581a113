/** Recoveries of a time window: preview, start, follow, cancel, and the report. */
import { z } from 'zod';
import { RECOVERABLE_STATUSES, RECOVERY_MODES, TRIGGER_KINDS } from '../engine/recovery/request.ts';
import { VERSION_CHOICES } from '../engine/version-choice.ts';
import { idText, plainText } from './inputs.ts';
import { procedure, router } from './trpc.ts';

// A time in ms since 1970; the window is on the runs' creation time.
const time = z.number({ error: 'A time must be a number of milliseconds.' }).int().min(0).max(8_640_000_000_000_000);
const recovery = z.object({
  flowId: idText('The flow id').optional(),
  from: time.optional(),
  to: time.optional(),
  statuses: z.array(z.enum(RECOVERABLE_STATUSES)).min(1, 'Choose at least one status of runs to recover.').max(RECOVERABLE_STATUSES.length),
  triggerKinds: z.array(z.enum(TRIGGER_KINDS)).min(1, 'Choose at least one kind of trigger.').max(TRIGGER_KINDS.length).default([...TRIGGER_KINDS]),
  mode: z.enum(RECOVERY_MODES).default('rerun'),
  version: z.enum(VERSION_CHOICES).default('latest'),
  name: plainText('The name', 200).optional(),
});
const operationId = z.object({ operationId: idText('The operation id') });

export const operationsRouter = router({
  preview: procedure.input(recovery).query(({ ctx, input }) => ctx.services.recoveries.preview(input)),
  recover: procedure.input(recovery).mutation(({ ctx, input }) => ctx.services.recoveries.start(input, ctx.user)),
  get: procedure.input(operationId).query(({ ctx, input }) => ctx.services.recoveries.get(input.operationId)),
  list: procedure.input(z.object({ limit: z.number().int().min(1).max(200).optional() }).optional())
    .query(({ ctx, input }) => ctx.services.recoveries.list(input?.limit)),
  cancel: procedure.input(operationId).mutation(({ ctx, input }) => ctx.services.recoveries.cancel(input.operationId, ctx.user)),
  report: procedure.input(operationId).query(({ ctx, input }) => ctx.services.recoveries.report(input.operationId)),
});

