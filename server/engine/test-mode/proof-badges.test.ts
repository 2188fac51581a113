/**
 * The flow list's proof badge from a flow's proof status, and the web's copy of the checks'
 * titles (it may import only types from the server) kept equal to the engine's.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_ORDER, CHECK_TITLES } from '../../../web/proofs/proof-words.ts';
import { proofBadgeOf } from './proof-badges.ts';
import { PROOF_CHECK_TITLES, PROOF_CHECKS } from './proof-report.ts';

type Status = Parameters<typeof proofBadgeOf>[0];

const status = (changes: Partial<Status>): Status => ({
  draft: { fingerprint: 'd', provenAt: null },
  latest: null,
  changedSinceProof: false,
  versions: [],
  ...changes,
});

describe('proof badges', () => {
  it('names the live version when a passed proof checked it, even if the draft changed since', () => {
    const badge = proofBadgeOf(status({ changedSinceProof: true, versions: [{ version: 4, provenAt: 1000 }, { version: 3, provenAt: null }] }), { id: 'p1', status: 'passed' });
    expect(badge).toEqual({ kind: 'live-proven', version: 4, at: 1000, proofId: 'p1' });
  });

  it('says an older version proven does not make the live one proven', () => {
    const badge = proofBadgeOf(status({ changedSinceProof: true, versions: [{ version: 4, provenAt: null }, { version: 3, provenAt: 900 }] }), { id: 'p1', status: 'passed' });
    expect(badge).toEqual({ kind: 'changed', proofId: 'p1' });
  });

  it('says when the newest proof failed, the draft is proven, or nothing is known', () => {
    expect(proofBadgeOf(status({}), { id: 'p2', status: 'failed' })).toEqual({ kind: 'failed', proofId: 'p2' });
    expect(proofBadgeOf(status({ draft: { fingerprint: 'd', provenAt: 500 } }), { id: 'p3', status: 'passed' })).toEqual({ kind: 'draft-proven', at: 500, proofId: 'p3' });
    expect(proofBadgeOf(status({}), { id: 'p4', status: 'passed' })).toBeNull();
  });

  it('the web names the checks as the engine does, in the same order', () => {
    expect(CHECK_TITLES).toEqual(PROOF_CHECK_TITLES);
    expect(CHECK_ORDER).toEqual([...PROOF_CHECKS]);
  });
});
