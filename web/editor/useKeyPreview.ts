/**
 * The key a step would get for the chosen sample, rendered by the server as the person
 * types (debounced). A key is rendered from the sample alone, and the
 * server names the steps a template mentions; so the request carries only the sample,
 * this step as a stand-in starting step (inside a stand-in of its loop, when it is in one)
 * and stand-ins for the steps its key names. That
 * keeps every keystroke's request small in a large flow, and the preview works while
 * other parts of the flow still have problems.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { FLOW_FORMAT } from '../../core/step-kinds.ts';
import { trpc } from '../lib/trpc.ts';
import { useShallow } from 'zustand/react/shallow';
import { isDefaultSample, useChosenSample } from './chosen-sample.ts';
import { useDebounced } from './useDebounced.ts';
import { selectMeta, selectStepData, useEditorStore, type SelectedStep } from './useEditorStore.ts';

// Long enough to skip most keystrokes, short enough to feel live.
const PREVIEW_DELAY_MS = 300;
const ORIGIN = { x: 0, y: 0 };
const labelOf = (step: SelectedStep) => (typeof step.data.label === 'string' ? step.data.label : undefined);

const confirmedOf = (step: SelectedStep) => (typeof step.data.keyConfirmed === 'string' ? { keyConfirmed: step.data.keyConfirmed } : {});

export function useKeyPreview(flowId: string, node: SelectedStep, template: string) {
  const meta = useEditorStore(selectMeta);
  const chosen = useChosenSample();
  // A named sample is sent by itself; the default one is the document's sample input.
  const sampleName = isDefaultSample(chosen) ? undefined : chosen.name;
  const sampleBody = chosen.input;
  // Follows step settings (labels), not positions: dragging a step sends no new preview.
  const settings = useEditorStore(useShallow(selectStepData));
  const document = useMemo(() => {
    void settings;
    const nodes = useEditorStore.getState().nodes;
    // Inside a loop the key is rendered for the sample's first item, and checked as a body step's key.
    const parentId = nodes.find((other) => other.id === node.id)?.parentId;
    const loop = parentId === undefined ? undefined : nodes.find((other) => other.id === parentId);
    const named = nodes.filter((other) => other.id !== node.id && other.id !== parentId && template.includes(other.id));
    return {
      format: FLOW_FORMAT,
      name: meta.name || 'Flow',
      ...(sampleName !== undefined ? { samples: [{ name: sampleName, input: sampleBody }] } : sampleBody === undefined ? {} : { sampleInput: sampleBody }),
      nodes: [
        // A confirmed key text travels along, so the preview drops the problem it settles.
        { id: node.id, type: 'trigger.manual', position: ORIGIN, data: { label: labelOf(node), ...confirmedOf(node) }, ...(loop ? { parentId: loop.id } : {}) },
        ...(loop ? [{ id: loop.id, type: loop.type ?? 'for.each', position: ORIGIN, data: { label: labelOf(loop), items: loop.data.items } }] : []),
        ...named.map((step) => ({ id: step.id, type: 'transform', position: ORIGIN, data: { label: labelOf(step), outputs: { value: '' } } })),
      ],
      edges: [],
    };
  }, [meta.name, settings, node, template, sampleName, sampleBody]);
  const input = useDebounced({ id: flowId, nodeId: node.id, template, document, ...(sampleName === undefined ? {} : { sample: sampleName }) }, PREVIEW_DELAY_MS);
  const settled = input.template === template && input.nodeId === node.id && input.sample === sampleName;
  const query = useQuery({
    ...trpc.flows.previewKey.queryOptions(input),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  return { ...query, settled };
}
