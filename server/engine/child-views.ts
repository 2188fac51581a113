/**
 * The links between a parent run and the runs its Run flow steps started, as the run page
 * shows them: "Started by … run #12, step …" on the child, and the child on the step.
 */
import type { Db } from '../store/db.ts';
import { getRun } from '../store/runs.ts';
import { FLOW_RUN } from '../../core/step-kinds.ts';
import type { PlanCache } from './flow-plan.ts';
import type { RunRow, RunStatus } from './types.ts';

export interface ChildLink {
  runId: string;
  seq: number;
  flowId: string;
  flowName: string | null;
  status: RunStatus;
}

export interface ParentLink extends Omit<ChildLink, 'status'> {
  nodeId: string;
  stepLabel: string;
}

/** The child a Run flow step's output (or waiting checkpoint) names. */
export function childRunIdOf(output: unknown): string | undefined {
  const id = (output as { childRunId?: unknown } | null | undefined)?.childRunId;
  return typeof id === 'string' ? id : undefined;
}

async function runLink(run: RunRow, plans: PlanCache) {
  return { runId: run.id, seq: run.seq, flowId: run.flowId, flowName: (await plans.get(run.versionId))?.document.name ?? null };
}

/** Each Run flow step's view with its child (read once per child; a run has few such steps). */
export async function withChildLinks<T extends { type: string; output: unknown }>(db: Db, plans: PlanCache, steps: T[]): Promise<Array<T & { child?: ChildLink }>> {
  return Promise.all(steps.map(async (step) => {
    const childId = step.type === FLOW_RUN.type ? childRunIdOf(step.output) : undefined;
    const child = childId === undefined ? undefined : await getRun(db, childId);
    return child ? { ...step, child: { ...(await runLink(child, plans)), status: child.status } } : step;
  }));
}

/** The run and step that started this run, when a Run flow step did. */
export async function parentLink(db: Db, plans: PlanCache, run: RunRow): Promise<ParentLink | null> {
  if (run.parentRunId === null) return null;
  const parent = await getRun(db, run.parentRunId);
  if (!parent) return null;
  const link = await runLink(parent, plans);
  const stepId = (run.parentNodeId ?? '').split('@')[0] ?? '';
  const node = (await plans.get(parent.versionId))?.document.nodes.find((candidate) => candidate.id === stepId);
  const label = typeof node?.data.label === 'string' && node.data.label.trim() !== '' ? node.data.label : (run.parentNodeId ?? '');
  return { ...link, nodeId: run.parentNodeId ?? '', stepLabel: label };
}
