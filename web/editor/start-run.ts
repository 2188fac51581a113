/**
 * Starts a test run of the draft with the given input: its keys stay apart from live
 * ones, and its side effects go to the built-in stand-ins unless the person confirmed
 * the real services.
 */
import { trpcClient } from '../lib/trpc.ts';

export async function startTestRun(flowId: string, input: unknown, realServices = false): Promise<{ runId: string }> {
  const started = await trpcClient.tests.start.mutate({ flowId, realServices, ...(input === undefined ? {} : { input }) });
  return { runId: started.runId };
}
