/**
 * The proof's fifth check, worked out from the document and its samples alone: keys that
 * come from the attempt, keys that render the same for two different samples, keys that
 * use a field a sample lacks, side-effect steps without a key, and HTTP calls that change
 * things but are not marked as side effects.
 */
import { MissingPathError, renderTemplate, renderValue, type RenderContext } from '../../../core/templates/render.ts';
import { isSideEffectStep, type FlowDocument, type FlowNode } from '../flow/document.ts';
import { lintKeyTemplate } from '../templates/lint-key.ts';
import { stableStringify } from '../step-runtime.ts';
import type { ProofStepResult } from './proof-report.ts';

import type { NamedSample } from '../flow/samples.ts';

const CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const labelOf = (node: FlowNode): string => {
  const label = (node.data as { label?: unknown }).label;
  return typeof label === 'string' && label.trim() !== '' ? label : node.id;
};

function sampleContext(sample: ItemSample, steps: Record<string, unknown>): RenderContext {
  return {
    trigger: { body: sample.input, headers: {}, receivedAt: '2000-01-01T00:00:00.000Z' },
    steps: Object.fromEntries(Object.entries(steps).map(([id, output]) => [id, { output }])),
    flow: {},
    secrets: {},
    ...(sample.index !== undefined ? { item: sample.item, loop: { index: sample.index, count: sample.count ?? 0 } } : {}),
  };
}

/**
 * `outputs`: step outputs of a test run with the first sample, so keys built from an
 * earlier step's answer can be rendered for it (other samples skip those keys).
 */
export function checkKeys(document: FlowDocument, samples: readonly NamedSample[], outputs: Record<string, unknown> = {}): ProofStepResult[] {
  const results: ProofStepResult[] = [];
  for (const node of document.nodes) {
    const label = labelOf(node);
    const data = node.data as { key?: unknown; request?: { method?: unknown }; sideEffect?: unknown };
    if (node.type === 'http.request' && !isSideEffectStep(node)) {
      const method = String(data.request?.method ?? 'GET').toUpperCase();
      if (CHANGING_METHODS.has(method)) {
        results.push({ nodeId: node.id, label, passed: false, sentence: `“${label}” sends ${method}, which usually changes something, but it is not marked as changing the outside world: nothing stops it from doing it twice. Mark it, and give it a key.` });
      }
      continue;
    }
    if (!isSideEffectStep(node)) continue;
    if (typeof data.key !== 'string' || data.key.trim() === '') {
      results.push({ nodeId: node.id, label, passed: false, sentence: `“${label}” changes the outside world but has no key, so nothing can tell a repeat from new work. Build one from the data, e.g. the order id and the action.` });
      continue;
    }
    const loop = node.parentId === undefined ? undefined : document.nodes.find((candidate) => candidate.id === node.parentId);
    results.push(checkOneKey(node, label, data.key, loop ? itemSamples(loop, samples) : samples, outputs, loop !== undefined));
  }
  return results;
}

/**
 * Inside a For each, what a key is rendered for is each item of each sample's list:
 * `item` and `loop` join the sample, named "“order 4417”, item 2".
 */
function itemSamples(loop: FlowNode, samples: readonly NamedSample[]): ItemSample[] {
  const items = (loop.data as { items?: unknown }).items;
  if (typeof items !== 'string') return [];
  return samples.flatMap((sample) => {
    let list: unknown;
    try {
      list = renderValue(items, sampleContext(sample, {}));
    } catch (cause) {
      if (cause instanceof MissingPathError) return [];
      throw cause;
    }
    if (!Array.isArray(list)) return [];
    return list.map((item, index) => ({ name: sample.name, input: sample.input, item, index: index + 1, count: list.length }));
  });
}

interface ItemSample extends NamedSample {
  item?: unknown;
  index?: number;
  count?: number;
}

function checkOneKey(node: FlowNode, label: string, key: string, samples: readonly ItemSample[], outputs: Record<string, unknown>, inLoop: boolean): ProofStepResult {
  const problems: string[] = [];
  const cautions: string[] = [];
  for (const lint of lintKeyTemplate(key, undefined, { inLoop })) {
    if (lint.code === 'template_syntax') problems.push(`its key has a mistake: ${lint.message}`);
    else if (lint.severity === 'error') problems.push(lint.message.replace(/^This key/, 'its key'));
    else cautions.push(lint.message);
  }
  const rendered = new Map<string, NamedSample[]>();
  for (const [index, sample] of samples.entries()) {
    try {
      const text = renderTemplate(key, sampleContext(sample, index === 0 ? outputs : {}));
      rendered.set(text, [...(rendered.get(text) ?? []), sample]);
    } catch (cause) {
      if (!(cause instanceof MissingPathError)) throw cause;
      if (cause.path.startsWith('steps.') && index > 0) continue;
      problems.push(`its key uses ${cause.path}, which ${sampleWords(sample)} does not have`);
    }
  }
  for (const [text, same] of rendered) {
    const distinct = new Set(same.map((sample) => stableStringify(inLoop ? (sample as ItemSample).item : sample.input)));
    if (distinct.size > 1) {
      const names = same.map(sampleWords).join(' and ');
      const what = inLoop ? 'two different items' : 'two different events';
      problems.push(`its key renders ${text} for both ${names}: ${what} would share one key, and the second would be stopped as a duplicate`);
    }
  }
  if (problems.length > 0) return { nodeId: node.id, label, passed: false, sentence: `“${label}”: ${problems.join('; ')}.` };
  const keys = [...rendered.keys()];
  const shown = keys.length > 0 ? ` (${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''})` : '';
  const caution = cautions.length > 0 ? ` Note: ${cautions.join(' ')}` : '';
  return { nodeId: node.id, label, passed: true, sentence: `“${label}” has a key built from the work that differs for every sample${shown}.${caution}` };
}

const sampleWords = (sample: ItemSample): string =>
  sample.index === undefined ? `the sample “${sample.name}”` : `item ${sample.index} of the sample “${sample.name}”`;
