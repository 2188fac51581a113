/**
 * Which document a proof proved: a hash of what decides behaviour — steps, their settings,
 * wiring and samples — and not of where steps sit on the canvas or what they are called.
 * A draft whose fingerprint matches the last passed proof is proven; a published version
 * with that fingerprint is too.
 */
import { createHash } from 'node:crypto';
import type { FlowDocument } from '../flow/document.ts';
import { stableStringify } from '../step-runtime.ts';

export function proofFingerprint(document: FlowDocument): string {
  const behaviour = {
    nodes: document.nodes.map(({ id, type, data, ...rest }) => {
      const { label: _label, ...settings } = data;
      return { id, type, data: settings, parentId: (rest as { parentId?: unknown }).parentId ?? null };
    }),
    edges: document.edges.map(({ source, target, sourceHandle }) => ({ source, target, sourceHandle: sourceHandle ?? null })),
    sampleInput: document.sampleInput ?? null,
    samples: (document as { samples?: unknown }).samples ?? null,
  };
  return createHash('sha256').update(stableStringify(behaviour)).digest('hex').slice(0, 32);
}
