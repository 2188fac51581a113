/**
 * The flow list's word on each flow's proofs: the live version proven ("v4 proven on
 * 30 Nov"), the draft proven, the draft changed since its last passed proof, or the newest
 * proof failed. Only flows with a finished proof get one; the rest say nothing.
 */
import type { ProofService } from './proof-service.ts';

export type ProofBadge =
  | { kind: 'live-proven'; version: number; at: number; proofId: string }
  | { kind: 'draft-proven'; at: number; proofId: string }
  | { kind: 'changed'; proofId: string }
  | { kind: 'failed'; proofId: string };

type ProofStatus = Awaited<ReturnType<ProofService['status']>>;

/** What the list says for one flow, given its proof status (proofs.status) and newest finished proof. */
export function proofBadgeOf(status: ProofStatus, newest: { id: string; status: string }): ProofBadge | null {
  // versions come newest first: the first is the one live events run.
  const live = status.versions[0];
  if (live?.provenAt != null) return { kind: 'live-proven', version: live.version, at: live.provenAt, proofId: newest.id };
  if (newest.status === 'failed') return { kind: 'failed', proofId: newest.id };
  if (status.draft.provenAt != null) return { kind: 'draft-proven', at: status.draft.provenAt, proofId: newest.id };
  if (status.changedSinceProof) return { kind: 'changed', proofId: newest.id };
  return null;
}

/** Badges of every flow that has a finished proof, by flow id. */
export async function proofBadges(proofs: ProofService, flowIds: readonly string[]): Promise<Record<string, ProofBadge>> {
  const newest = await proofs.latestByFlow(flowIds);
  const entries = await Promise.all([...newest].map(async ([flowId, proof]) => {
    const badge = proofBadgeOf(await proofs.status(flowId), proof);
    return badge ? ([flowId, badge] as const) : null;
  }));
  return Object.fromEntries(entries.filter((entry) => entry !== null));
}
