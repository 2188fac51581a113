/**
 * Whether the draft on the canvas is what runs now: the header's "Draft differs from v3"
 * or "Live is up to date", and Run's "publish first?" both ask this one question.
 */
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import { stableStringify } from './flow-document.ts';

type Comparable = Pick<FlowDocument, 'name' | 'description' | 'sampleInput' | 'samples' | 'nodes' | 'edges'>;

/**
 * The parts of a flow that a version is compared on. Left out, because changing them
 * changes nothing a run or a person relying on the live version would notice:
 * - where steps sit on the canvas (`position`): moving a box is tidying, not editing;
 * - a connection's own id: the same two steps joined again is the same flow;
 * - a missing exit versus an empty one (`sourceHandle: null`), and the order of fields.
 * Everything else counts, including the name and the samples, which the version
 * keeps and shows (and *Prove it* runs over).
 */
export function comparableFlow(document: Comparable): string {
  return stableStringify({
    name: document.name,
    description: document.description,
    sampleInput: document.sampleInput,
    samples: document.samples?.length ? document.samples : undefined,
    nodes: document.nodes.map(({ position: _position, ...node }) => node),
    edges: document.edges.map((edge) => ({
      source: edge.source,
      target: edge.target,
      sourceHandle: edge.sourceHandle ?? undefined,
      targetHandle: edge.targetHandle ?? undefined,
    })),
  });
}

export function draftDiffersFromLive(draft: Comparable, live: Comparable): boolean {
  return comparableFlow(draft) !== comparableFlow(live);
}

export type LiveStatus =
  | { state: 'unpublished' }
  | { state: 'checking'; version: number }
  | { state: 'differs'; version: number }
  | { state: 'up-to-date'; version: number };

export function liveStatusWords(status: LiveStatus): string {
  switch (status.state) {
    case 'unpublished':
      return 'Not published yet';
    case 'checking':
      return `v${status.version} live`;
    case 'differs':
      return `Draft differs from v${status.version}`;
    case 'up-to-date':
      return 'Live is up to date';
  }
}
