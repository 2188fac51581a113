/**
 * What the run page shows of a For each step: how many items there are and how each one
 * stands ("50 items — 47 done, 3 duplicates stopped, 0 failed"), and a page of items, each
 * with its own steps. Read from the same checkpoints, traces and claims as the other steps
 * (run-views.ts): one item's run of body step `send` is the step `send@<position>`.
 */
import { FOR_EACH } from '../../core/step-kinds.ts';
import type { FlowDocument, FlowNode } from './flow/document.ts';
import { stepView, type IndexedRecords, type StepStatus, type StepView } from './run-views.ts';

export interface LoopSummaryView {
  items: number;
  done: number;
  duplicates: number;
  failed: number;
  review: number;
  waiting: number;
  running: number;
  notReached: number;
}

export interface LoopItemView {
  /** Its position in the list, from 1. */
  item: number;
  status: StepStatus;
  steps: StepView[];
}

/**
 * A body step on the canvas stands for all its items: any that failed shows first. An item
 * that needs a person is offered as a step of its own (`send@37`, uncertainItemSteps) and
 * counted on its loop; the body step is not itself reviewable, so it never reads uncertain.
 */
const BODY_STANDING: readonly StepStatus[] = ['failed', 'waiting', 'running', 'succeeded', 'duplicate', 'skipped', 'not_reached'];

function bodyStepStatus(node: FlowNode, items: number, records: IndexedRecords): StepStatus {
  const seen = new Set<StepStatus>();
  for (let item = 1; item <= items; item++) seen.add(stepView({ ...node, id: `${node.id}@${item}` }, records).status);
  return BODY_STANDING.find((status) => seen.has(status)) ?? 'not_reached';
}

/** An item stands as its most telling step: a person's review first, a step not reached last. */
const STANDING: readonly StepStatus[] = ['uncertain', 'failed', 'waiting', 'running', 'duplicate', 'succeeded', 'skipped', 'not_reached'];

function bodyNodes(document: FlowDocument, loopId: string): FlowNode[] {
  return document.nodes.filter((node) => node.parentId === loopId);
}

/** The step id and position of one item's run of a body step (`send@37`). */
function splitItemId(nodeId: string): { stepId: string; item: number } | undefined {
  const at = nodeId.lastIndexOf('@');
  const item = Number(nodeId.slice(at + 1));
  return at > 0 && Number.isInteger(item) && item > 0 ? { stepId: nodeId.slice(0, at), item } : undefined;
}

/** How many items the loop has: its list once it finished, else what its latest event says. */
function itemCount(loopId: string, body: FlowNode[], records: IndexedRecords): number {
  const checkpoint = records.byNode.get(loopId);
  if (checkpoint?.status === 'succeeded' && Array.isArray(checkpoint.output)) return checkpoint.output.length;
  const data = records.traceByNode.get(loopId)?.last.data as { items?: unknown; summary?: { items?: unknown } } | null | undefined;
  const count = data?.summary?.items ?? data?.items;
  if (typeof count === 'number') return count;
  // Before the loop said how long its list is: the furthest item recorded.
  const ids = new Set(body.map((node) => node.id));
  let furthest = 0;
  for (const nodeId of records.byNode.keys()) {
    const split = splitItemId(nodeId);
    if (split && ids.has(split.stepId)) furthest = Math.max(furthest, split.item);
  }
  return furthest;
}

function itemView(body: FlowNode[], item: number, records: IndexedRecords): LoopItemView {
  const steps = body.map((node) => {
    const view = stepView({ ...node, id: `${node.id}@${item}` }, records);
    return { ...view, label: `${view.label} — item ${item}` };
  });
  const status = STANDING.find((standing) => steps.some((step) => step.status === standing)) ?? 'not_reached';
  // A body whose steps were all skipped on a branch is done, not skipped.
  return { item, status: status === 'skipped' ? 'succeeded' : status, steps };
}

export function loopSummary(document: FlowDocument, loopId: string, records: IndexedRecords): LoopSummaryView {
  const body = bodyNodes(document, loopId);
  const summary: LoopSummaryView = { items: itemCount(loopId, body, records), done: 0, duplicates: 0, failed: 0, review: 0, waiting: 0, running: 0, notReached: 0 };
  for (let item = 1; item <= summary.items; item++) {
    const { status } = itemView(body, item, records);
    if (status === 'succeeded') summary.done++;
    else if (status === 'duplicate') summary.duplicates++;
    else if (status === 'failed') summary.failed++;
    else if (status === 'uncertain') summary.review++;
    else if (status === 'waiting') summary.waiting++;
    else if (status === 'running') summary.running++;
    else summary.notReached++;
  }
  return summary;
}

/** The steps whose records one page of a loop's items needs: the loop itself and each item's body steps. */
export function loopPageStepIds(document: FlowDocument, loopId: string, offset: number, limit: number): string[] {
  const body = bodyNodes(document, loopId);
  const ids = [loopId];
  for (let item = offset + 1; item <= offset + limit; item++) for (const node of body) ids.push(`${node.id}@${item}`);
  return ids;
}

/** One page of a loop's items, each with its steps. */
export function loopItemPage(document: FlowDocument, loopId: string, records: IndexedRecords, offset: number, limit: number): { total: number; items: LoopItemView[] } {
  const body = bodyNodes(document, loopId);
  const total = itemCount(loopId, body, records);
  const items: LoopItemView[] = [];
  for (let item = offset + 1; item <= Math.min(total, offset + limit); item++) items.push(itemView(body, item, records));
  return { total, items };
}

/** Item steps waiting for a person's decision, so the page offers the review of each. */
export function uncertainItemSteps(document: FlowDocument, records: IndexedRecords): StepView[] {
  const byId = new Map(document.nodes.map((node) => [node.id, node]));
  const views: StepView[] = [];
  for (const [nodeId, row] of records.byNode) {
    const split = row.status === 'uncertain' ? splitItemId(nodeId) : undefined;
    const node = split ? byId.get(split.stepId) : undefined;
    if (!split || node?.parentId === undefined) continue;
    const view = stepView({ ...node, id: nodeId }, records);
    views.push({ ...view, label: `${view.label} — item ${split.item}` });
  }
  return views;
}

/** Results of a loop the run page shows in its answer; each item's own are in its page of items. */
export const LOOP_OUTPUT_HEAD = 100;

/**
 * A long loop's list of results is cut to its head in the page's answer (10,000 results
 * would make every look at the run carry megabytes), with the full length beside it.
 */
function outputHead(output: unknown): { output?: unknown[]; outputTotal?: number } {
  if (!Array.isArray(output) || output.length <= LOOP_OUTPUT_HEAD) return {};
  return { output: output.slice(0, LOOP_OUTPUT_HEAD), outputTotal: output.length };
}

/**
 * Every step of the document, a For each step with its items' summary, then the item
 * steps waiting for review (the page shows a review panel for each).
 */
export function stepViewsWithLoops(document: FlowDocument, records: IndexedRecords): Array<StepView & { loop?: LoopSummaryView; outputTotal?: number }> {
  const loops = new Map<string, LoopSummaryView>();
  for (const node of document.nodes) if (node.type === FOR_EACH.type) loops.set(node.id, loopSummary(document, node.id, records));
  const views: Array<StepView & { loop?: LoopSummaryView; outputTotal?: number }> = document.nodes.map((node) => {
    const view = stepView(node, records);
    const loop = loops.get(node.id);
    if (loop) return { ...view, loop, ...outputHead(view.output) };
    const items = node.parentId === undefined ? undefined : loops.get(node.parentId)?.items;
    return items === undefined ? view : { ...view, status: bodyStepStatus(node, items, records) };
  });
  return [...views, ...uncertainItemSteps(document, records)];
}
