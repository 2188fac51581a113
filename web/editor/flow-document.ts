/**
 * Between the canvas and the flow document (DESIGN.md §3): what the editor saves,
 * exports and sends to previews. Canvas-only fields (selection, measured size) never
 * reach the document.
 */
import { FLOW_FORMAT } from '../../core/step-kinds.ts';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { exitLabel, type Snapshot, type StepEdge, type StepNode } from './editor-changes.ts';

export function snapshotFromDocument(document: FlowDocument): Snapshot {
  // React Flow draws a group's children relative to it and wants the group listed first.
  const ordered = [...document.nodes.filter((node) => node.parentId === undefined), ...document.nodes.filter((node) => node.parentId !== undefined)];
  const nodes: StepNode[] = ordered.map((node) => ({
    id: node.id,
    type: node.type,
    position: { x: node.position.x, y: node.position.y },
    data: node.data,
    ...(node.parentId === undefined ? {} : { parentId: node.parentId }),
  }));
  const edges: StepEdge[] = document.edges.map((edge) => ({
    id: edge.id,
    source: edge.source,
    target: edge.target,
    ...(edge.sourceHandle ? { sourceHandle: edge.sourceHandle } : {}),
    ...(edge.targetHandle ? { targetHandle: edge.targetHandle } : {}),
    ...exitLabel(edge.sourceHandle),
  }));
  return {
    nodes,
    edges,
    meta: {
      name: document.name,
      ...(document.description === undefined ? {} : { description: document.description }),
      ...(document.sampleInput === undefined ? {} : { sampleInput: document.sampleInput }),
      ...(document.samples === undefined ? {} : { samples: document.samples }),
      ...(document.settings === undefined ? {} : { settings: document.settings }),
    },
  };
}

export function documentFromSnapshot(snapshot: Snapshot): FlowDocument {
  return {
    format: FLOW_FORMAT,
    name: snapshot.meta.name,
    ...(snapshot.meta.description === undefined ? {} : { description: snapshot.meta.description }),
    ...(snapshot.meta.sampleInput === undefined ? {} : { sampleInput: snapshot.meta.sampleInput }),
    ...(snapshot.meta.samples === undefined || snapshot.meta.samples.length === 0 ? {} : { samples: snapshot.meta.samples }),
    ...(snapshot.meta.settings === undefined || Object.keys(snapshot.meta.settings).length === 0 ? {} : { settings: snapshot.meta.settings }),
    nodes: snapshot.nodes.map((node) => ({
      id: node.id,
      type: node.type ?? '',
      // Whole pixels: sub-pixel drag positions only make exported files noisy.
      position: { x: Math.round(node.position.x), y: Math.round(node.position.y) },
      data: node.data,
      // The For each step whose body holds this step.
      ...(node.parentId === undefined ? {} : { parentId: node.parentId }),
    })),
    edges: snapshot.edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      ...(edge.sourceHandle ? { sourceHandle: edge.sourceHandle } : {}),
      ...(edge.targetHandle ? { targetHandle: edge.targetHandle } : {}),
    })),
  } as FlowDocument;
}

/** JSON with sorted keys, so two documents compare equal whatever order their fields were written in. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}
