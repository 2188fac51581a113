/**
 * What a proof reports: per check and per side-effect step, whether the flow did each
 * thing once, in sentences a person reads. One report per proof; a proof is of the draft
 * as it was (its fingerprint), and a published version with the same fingerprint counts
 * as proven by it.
 */

export const PROOF_CHECKS = ['twice', 'concurrent', 'killed', 'webhook', 'keys'] as const;
export type ProofCheckId = (typeof PROOF_CHECKS)[number];

export const PROOF_CHECK_TITLES: Record<ProofCheckId, string> = {
  twice: 'Twice in a row',
  concurrent: 'Ten at once',
  killed: 'Stopped hard between the action and its record',
  webhook: 'A delivered webhook sent again',
  keys: 'Keys checked on the samples',
};

export type ProofStatus = 'running' | 'passed' | 'failed';

export interface ProofStepResult {
  nodeId: string;
  label: string;
  passed: boolean;
  sentence: string;
}

export interface ProofCheckResult {
  check: ProofCheckId;
  title: string;
  passed: boolean;
  /** One sentence for the whole check. */
  summary: string;
  steps: ProofStepResult[];
  /** The test runs the check started, to open from the report. */
  runIds: string[];
}

export interface ProofReport {
  id: string;
  flowId: string;
  flowName: string;
  /** The snapshot of the draft the proof ran on. */
  versionId: string;
  /** What the proof is of: flows.proofFingerprint of the document. */
  fingerprint: string;
  /** The sample the runs used. */
  sample: string;
  status: ProofStatus;
  checks: ProofCheckResult[];
  progress: { done: number; total: number; current: string | null };
  createdAt: number;
  finishedAt: number | null;
  createdBy: string;
  /** Set when the proof itself could not be carried out (not when a check failed). */
  error: string | null;
}
