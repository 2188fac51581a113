import { TRPCClientError } from '@trpc/client';
import type { FlowProblem } from './useStepProblems.ts';

/** The list of problems the server attaches to a refused flow (BAD_REQUEST `details`), if any. */
export function problemsOf(error: unknown): FlowProblem[] | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const details: unknown = (error.data as { details?: unknown } | undefined)?.details;
  if (!Array.isArray(details)) return undefined;
  return details.filter(
    (item): item is FlowProblem =>
      item !== null && typeof item === 'object' && typeof (item as FlowProblem).message === 'string' && ((item as FlowProblem).severity === 'error' || (item as FlowProblem).severity === 'warning'),
  );
}
