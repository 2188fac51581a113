/**
 * The header's word on the live version: the draft on the canvas compared with the
 * newest published version (live-status.ts). Versions never change, so each is fetched
 * once; the comparison follows every edit, before it is even saved.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { trpc } from '../lib/trpc.ts';
import { documentFromSnapshot } from './flow-document.ts';
import { draftDiffersFromLive, type LiveStatus } from './live-status.ts';
import { selectEdges, selectMeta, selectNodes, useEditorStore } from './useEditorStore.ts';

export function useLiveStatus(flowId: string, liveVersion: number | null): LiveStatus {
  const live = useQuery({
    ...trpc.flows.export.queryOptions({ id: flowId, version: liveVersion ?? 1 }),
    enabled: liveVersion !== null,
    staleTime: Infinity,
  });
  const nodes = useEditorStore(selectNodes);
  const edges = useEditorStore(selectEdges);
  const meta = useEditorStore(selectMeta);
  const differs = useMemo(
    () => (live.data ? draftDiffersFromLive(documentFromSnapshot({ nodes, edges, meta }), live.data) : null),
    [live.data, nodes, edges, meta],
  );
  if (liveVersion === null) return { state: 'unpublished' };
  if (differs === null) return { state: 'checking', version: liveVersion };
  return { state: differs ? 'differs' : 'up-to-date', version: liveVersion };
}
