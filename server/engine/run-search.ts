/**
 * Finding a run by what it did: the search box's words (core/run-search.ts) or the command
 * line's options turned into the store's filter (store/run-list.ts). A step is named as
 * people see it — its name or its id — and a run keeps the id of the step it failed at, so
 * a name is looked up in the flows' latest versions (one flow's, when the list is of one).
 */
import { inputPath, parseRunSearch } from '../../core/run-search.ts';
import { stepLabel } from '../../core/step-kinds.ts';
import type { FlowStore } from '../store/flows.ts';
import type { RunFilter } from '../store/run-list.ts';
import type { PlanCache } from './flow-plan.ts';

export interface RunSearchRequest {
  flowId?: string;
  /** The search box's text: a run number, id or event id, or one of the searches below in words. */
  search?: string;
  key?: string;
  input?: { path: string; value: string };
  /** A step's name or id. */
  failedStep?: string;
}

type SearchFilter = Pick<RunFilter, 'search' | 'key' | 'input' | 'failedNodes'>;

export async function searchFilter(flows: FlowStore, plans: PlanCache, request: RunSearchRequest): Promise<SearchFilter> {
  const filter: SearchFilter = {};
  let failedStep = request.failedStep?.trim() || undefined;
  if (request.search?.trim()) {
    const words = parseRunSearch(request.search);
    if (words.kind === 'key') filter.key = words.key;
    else if (words.kind === 'input') filter.input = { path: words.path, value: words.value };
    else if (words.kind === 'failed-step') failedStep = words.step;
    else filter.search = words.text;
  }
  // Options on the command line are added to the box's words; both must hold.
  if (request.key !== undefined) filter.key = request.key;
  if (request.input) filter.input = { path: inputPath(request.input.path), value: request.input.value };
  if (failedStep !== undefined) filter.failedNodes = await stepIds(flows, plans, failedStep, request.flowId);
  return filter;
}

/** The ids of the steps named `step` (by id, or by name whatever its case) in the latest versions. */
async function stepIds(flows: FlowStore, plans: PlanCache, step: string, flowId: string | undefined): Promise<string[]> {
  const ids = new Set([step]);
  const wanted = step.toLowerCase();
  const flowIds = flowId ? [flowId] : (await flows.list()).filter((flow) => flow.latestVersion !== null).map((flow) => flow.id);
  for (const id of flowIds) {
    const version = await flows.latestVersion(id);
    const plan = version ? await plans.get(version.id) : null;
    for (const node of plan?.document.nodes ?? []) {
      if (stepLabel(node).toLowerCase() === wanted) ids.add(node.id);
    }
  }
  return [...ids];
}
