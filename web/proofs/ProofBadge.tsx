/** The flow list's proof badge ("v4 proven on 30 Nov", "Proof failed"), opening the report it comes from. */
import './proofs.css';
import { followLink } from '../lib/router.ts';
import { badgeWords, proofPath, type ProofBadge as Badge } from './proof-words.ts';

const TITLES: Record<Badge['kind'], string> = {
  'live-proven': 'The live version passed every check of Prove it',
  'draft-proven': 'The draft passed every check of Prove it; it is not published yet',
  changed: 'The flow changed since its last passed proof; prove it again',
  failed: 'The newest proof found something that could happen twice',
};

export function ProofBadge({ flowId, flowName, badge }: { flowId: string; flowName: string; badge: Badge | null }) {
  if (!badge) return null;
  const path = proofPath(flowId, badge.proofId);
  return (
    <a
      href={path}
      className={`proof-badge proof-badge--${badge.kind}`}
      title={TITLES[badge.kind]}
      data-testid="flow-list.proof"
      onClick={followLink(path)}
    >
      {badgeWords(badge)}<span className="visually-hidden">: proof report of {flowName}</span>
    </a>
  );
}
