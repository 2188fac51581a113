/**
 * What publishing a changed key means for events already seen. A side-effect step whose
 * key template or scope differs from the live version claims different keys from now on:
 * a past event replayed, or sent again by its sender, renders the new key, finds no claim
 * and acts again. Before such a publish, the recent events of the flow (up to 1,000,
 * newest first) are rendered under both the live and the new key, strictly, and counted
 * per step: new key, same key, or no key at all (the template cannot be filled in from
 * that event). Publishing then needs a confirmation, recorded on the version.
 */
import type { Db } from '../store/db.ts';
import { recentFlowEvents, stepOutputs } from '../store/past-events.ts';
import { isSideEffectStep, type FlowDocument, type FlowNode } from './flow/document.ts';
import { triggerContext } from './run-executor.ts';
import { templatePaths } from '../../core/templates/parse.ts';
import { renderTemplate, type RenderContext } from '../../core/templates/render.ts';
import type { CheckpointRow, RunRow } from './types.ts';

/** How many past events are rendered (default: the newest 1,000). */
export const GUARD_EVENT_LIMIT = 1000;
const EXAMPLE_PAIRS = 3;

export interface KeyChangeStep {
  nodeId: string;
  label: string;
  /** The key template and scope in the live version and in the draft. */
  live: { key: string; keyScope: string | null };
  draft: { key: string; keyScope: string | null };
  /** Events whose key differs under the new template: they would act again if replayed or sent again. */
  changed: number;
  /** Events whose key comes out the same: nothing changes for them. */
  unchanged: number;
  /** Events the live template could not be filled in from (they never had a key). */
  liveFailed: number;
  /** Events the new template cannot be filled in from: replayed, they would stop at this step. */
  draftFailed: number;
  /** A few events whose key changes, newest first. */
  examples: { from: string; to: string }[];
  /** The counts in words. */
  sentences: string[];
}

export interface KeyChangeSummary {
  /** The live version compared against (null: nothing published yet, so no key changes). */
  liveVersion: number | null;
  /** How many past events were rendered. */
  events: number;
  limit: number;
  steps: KeyChangeStep[];
}

/** The side-effect steps present in both versions whose key or scope text differs. */
export function changedKeySteps(live: FlowDocument, draft: FlowDocument): Array<{ live: FlowNode; draft: FlowNode }> {
  const before = new Map(live.nodes.map((node) => [node.id, node]));
  const pairs: Array<{ live: FlowNode; draft: FlowNode }> = [];
  for (const node of draft.nodes) {
    const old = before.get(node.id);
    if (!old || !isSideEffectStep(node) || !isSideEffectStep(old)) continue;
    if (text(old.data.key) !== text(node.data.key) || scopeOf(old) !== scopeOf(node)) pairs.push({ live: old, draft: node });
  }
  return pairs;
}

export async function summariseKeyChanges(
  db: Db,
  flowId: string,
  live: { version: number; document: FlowDocument } | null,
  draft: FlowDocument,
  limit = GUARD_EVENT_LIMIT,
): Promise<KeyChangeSummary> {
  const pairs = live ? changedKeySteps(live.document, draft) : [];
  if (!live || pairs.length === 0) return { liveVersion: live?.version ?? null, events: 0, limit, steps: [] };
  const runs = await recentFlowEvents(db, flowId, limit);
  // Only the outputs keys refer to are read, for all events at once.
  const named = [...new Set(pairs.flatMap(({ live: a, draft: b }) => [...stepsNamed(a), ...stepsNamed(b)]))];
  const outputs = await stepOutputs(db, runs.map((run) => run.id), named);
  return { liveVersion: live.version, events: runs.length, limit, steps: compareKeys(flowId, live.document, draft, runs, outputs) };
}

/** The counting itself, on rows already read. */
export function compareKeys(flowId: string, live: FlowDocument, draft: FlowDocument, runs: RunRow[], outputs: CheckpointRow[]): KeyChangeStep[] {
  const byRun = new Map<string, CheckpointRow[]>();
  for (const row of outputs) byRun.set(row.runId, [...(byRun.get(row.runId) ?? []), row]);
  const triggerIds = [live, draft].map((doc) => doc.nodes.find((node) => node.type.startsWith('trigger.'))?.id);
  const steps: KeyChangeStep[] = changedKeySteps(live, draft).map(({ live: old, draft: node }) => ({
    nodeId: node.id,
    label: text(node.data.label) || node.id,
    live: { key: text(old.data.key), keyScope: scopeOf(old) },
    draft: { key: text(node.data.key), keyScope: scopeOf(node) },
    changed: 0, unchanged: 0, liveFailed: 0, draftFailed: 0, examples: [], sentences: [],
  }));
  for (const run of runs) {
    const trigger = triggerContext(run);
    const stepsOf: RenderContext['steps'] = {};
    for (const row of byRun.get(run.id) ?? []) stepsOf[row.nodeId] = { output: row.output };
    for (const id of triggerIds) if (id) stepsOf[id] = { output: trigger };
    const context: RenderContext = { trigger, steps: stepsOf, flow: { id: flowId, name: draft.name }, run: { id: run.id, attempt: run.attempt } };
    for (const step of steps) {
      const from = claimOf(flowId, step.nodeId, step.live, { ...context, flow: { id: flowId, name: live.name } });
      const to = claimOf(flowId, step.nodeId, step.draft, context);
      if (from === null) step.liveFailed++;
      if (to === null) step.draftFailed++;
      if (from === null || to === null) continue;
      if (from === to) {
        step.unchanged++;
        continue;
      }
      step.changed++;
      if (step.examples.length < EXAMPLE_PAIRS) step.examples.push({ from, to });
    }
  }
  for (const step of steps) step.sentences = sentencesFor(step, runs.length);
  return steps;
}

/** The scope and key a step would claim, as one text; null when the event cannot fill it in. */
function claimOf(flowId: string, nodeId: string, key: { key: string; keyScope: string | null }, context: RenderContext): string | null {
  try {
    const scope = key.keyScope ? renderTemplate(key.keyScope, context) : `${flowId}:${nodeId}`;
    const rendered = renderTemplate(key.key, context);
    // The default scope is the same for both versions, so only a named scope is shown.
    return key.keyScope ? `${scope} / ${rendered}` : rendered;
  } catch {
    return null;
  }
}

function sentencesFor(step: KeyChangeStep, events: number): string[] {
  if (events === 0) return ['No events have reached this flow yet, so no past event would act again.'];
  const sentences = [
    step.changed === 0
      ? 'No past event would get a new key.'
      : step.changed === 1
      ? '1 past event would get a new key and would act again if replayed or sent again.'
      : `${count(step.changed)} would get new keys and would act again if replayed or sent again.`,
  ];
  if (step.unchanged > 0) {
    sentences.push(`${count(step.unchanged)} ${step.unchanged === 1 ? 'keeps' : 'keep'} the same key, so ${step.unchanged === 1 ? 'it' : 'they'} would still be stopped as duplicates.`);
  }
  if (step.draftFailed > 0) {
    sentences.push(`${count(step.draftFailed)} cannot fill in the new key (a field it uses is missing from them), so replayed they would stop at this step.`);
  }
  if (step.liveFailed > 0) sentences.push(`${count(step.liveFailed)} could not fill in the old key either, so this step never acted for them.`);
  return sentences;
}

function count(events: number): string {
  return events === 1 ? '1 past event' : `${events} past events`;
}

function stepsNamed(node: FlowNode): string[] {
  const named: string[] = [];
  for (const template of [text(node.data.key), scopeOf(node) ?? '']) {
    try {
      for (const path of templatePaths(template)) if (path[0] === 'steps' && path[1]) named.push(path[1]);
    } catch {
      // A template with a syntax error cannot be published; nothing to read for it.
    }
  }
  return named;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function scopeOf(node: FlowNode): string | null {
  const scope = text(node.data.keyScope).trim();
  return scope === '' ? null : scope;
}
