import { describe, expect, it } from 'vitest';
import { badgeWords, checkTitle, headline, type ProofReport } from './proof-words.ts';

const report = (changes: Partial<ProofReport>): ProofReport => ({
  id: 'proof_1', flowId: 'flow_1', flowName: 'Orders', versionId: 'ver_1', fingerprint: 'f', sample: 'Sample input', status: 'running',
  checks: [], progress: { done: 0, total: 5, current: null }, createdAt: 0, finishedAt: null, createdBy: 'admin', error: null, ...changes,
});
const check = (passed: boolean) => ({ check: 'twice' as const, title: 'Twice in a row', passed, summary: 's', steps: [], runIds: [] });

describe('proof words', () => {
  it('names a check by its title', () => {
    expect(checkTitle('concurrent')).toBe('Ten at once');
    expect(checkTitle('Something new')).toBe('Something new');
  });

  it('says which check is under way, and the outcome in one sentence', () => {
    expect(headline(report({ progress: { done: 1, total: 5, current: 'concurrent' } }))).toBe('Checking: Ten at once… (2 of 5)');
    expect(headline(report({ status: 'passed', checks: [check(true), check(true)] }))).toBe('Proven: every check passed (2).');
    expect(headline(report({ status: 'failed', checks: [check(true), check(false)] }))).toBe('Not proven: 1 of 2 checks failed.');
    expect(headline(report({ status: 'failed', error: 'The draft has problems.' }))).toBe('The proof could not be carried out: The draft has problems.');
  });

  it('words the flow list badge', () => {
    const at = new Date(2026, 10, 30, 12).getTime();
    expect(badgeWords({ kind: 'live-proven', version: 4, at, proofId: 'p' })).toMatch(/^v4 proven on (30 Nov|Nov 30)$/);
    expect(badgeWords({ kind: 'draft-proven', at, proofId: 'p' })).toBe('Draft proven');
    expect(badgeWords({ kind: 'changed', proofId: 'p' })).toBe('Changed since proof');
    expect(badgeWords({ kind: 'failed', proofId: 'p' })).toBe('Proof failed');
  });
});
