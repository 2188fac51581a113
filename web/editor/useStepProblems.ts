/**
 * The flow's problems (from the server's validation, held by TanStack Query) grouped by
 * step, so each box on the canvas and each field of the inspector can show its own.
 */
import { createContext, useContext } from 'react';
import type { FlowProblem } from '../../server/engine/flow/problems.ts';

export type { FlowProblem };

export const StepProblemsContext = createContext<ReadonlyMap<string, readonly FlowProblem[]>>(new Map());

const NONE: readonly FlowProblem[] = [];

export function groupProblemsByStep(problems: readonly FlowProblem[]): Map<string, FlowProblem[]> {
  const byStep = new Map<string, FlowProblem[]>();
  for (const problem of problems) {
    if (problem.nodeId === undefined) continue;
    const list = byStep.get(problem.nodeId) ?? [];
    list.push(problem);
    byStep.set(problem.nodeId, list);
  }
  return byStep;
}

export function useStepProblems(nodeId: string): readonly FlowProblem[] {
  return useContext(StepProblemsContext).get(nodeId) ?? NONE;
}

/**
 * A problem's sentence without the step's name in front, for places that already show
 * which step it is: `Step "Create invoice" (invoice) needs a URL.` → `Needs a URL.`
 */
export function withoutStepName(message: string): string {
  const rest = message.replace(/^Step "[^"]*"(?: \([^)]*\))?(?:, "[^"]*")?:?\s*/, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}
