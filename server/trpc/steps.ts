import { z } from 'zod';
import { idText, jsonValue, plainText } from './inputs.ts';
import { procedure, router } from './trpc.ts';

const tryInput = z.object({
  flowId: idText('The flow id'),
  nodeId: idText('The step id'),
  sample: plainText('The sample name', 200).optional(),
  document: jsonValue('The flow', { refuseNul: true }).optional(),
});

export const stepsRouter = router({
  /**
   * Try this step: renders one step of the document on the canvas (or the saved draft)
   * against a sample, without a run. A mutation only so that a large document travels in
   * the request body; it changes nothing.
   */
  try: procedure.input(tryInput).mutation(({ ctx, input }) => ctx.services.stepTry.tryStep(input)),
  /** The same step rendered the same way, then sent to the stand-in a test run would use; answers what it said. */
  sendToStandIn: procedure.input(tryInput).mutation(({ ctx, input }) => ctx.services.stepTry.sendToStandIn(input)),
});
