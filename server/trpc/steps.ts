import { z } from 'zod';
import { idText, jsonValue, plainText } from './inputs.ts';
import { procedure, router } from './trpc.ts';

export const stepsRouter = router({
  /**
   * Try this step: renders one step of the document on the canvas (or the saved draft)
   * against a sample, without a run. A mutation only so that a large document travels in
   * the request body; it changes nothing.
   */
  try: procedure
    .input(
      z.object({
        flowId: idText('The flow id'),
        nodeId: idText('The step id'),
        sample: plainText('The sample name', 200).optional(),
        document: jsonValue('The flow', { refuseNul: true }).optional(),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.stepTry.tryStep(input)),
});
