/** Starts a run of the flow's latest published version with the given input. */
import { trpcClient } from '../lib/trpc.ts';

export async function startRun(flowId: string, input: unknown): Promise<{ runId: string }> {
  const started = await trpcClient.runs.start.mutate({ flowId, ...(input === undefined ? {} : { input }) });
  return { runId: started.runId };
}
