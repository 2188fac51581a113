/**
 * The header's word on the live version: the draft on the canvas compared with the
 * newest published version (live-status.ts). Versions never change, so each is fetched
 * once; the comparison follows every edit, before it is even saved.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { trpc } from '../lib/trpc.ts';
import { documentFromSnapshot } from './flow-document.ts';
import { draftDiffersFromLive, type LiveStatus } from './live-status.ts';
import { selectEdges, selectMeta, selectStepData, useEditorStore } from './useEditorStore.ts';

export function useLiveStatus(flowId: string, liveVersion: number | null): LiveStatus {
  const live = useQuery({
    ...trpc.flows.export.queryOptions({ id: flowId, version: liveVersion ?? 1 }),
    enabled: liveVersion !== null,
    staleTime: Infinity,
  });
  // Positions do not count (live-status.ts), so dragging a step does not compare the
  // whole flow on every frame: only adding, removing or editing a step does.
  const stepData = useEditorStore(useShallow(selectStepData));
  const edges = useEditorStore(selectEdges);
  const meta = useEditorStore(selectMeta);
  const differs = useMemo(
    () => (live.data ? draftDiffersFromLive(documentFromSnapshot(useEditorStore.getState()), live.data) : null),
    // stepData, edges and meta only say when the flow changed; the state is read whole.
    [live.data, stepData, edges, meta],
  );
  if (liveVersion === null) return { state: 'unpublished' };
  if (differs === null) return { state: 'checking', version: liveVersion };
  return { state: differs ? 'differs' : 'up-to-date', version: liveVersion };
}
