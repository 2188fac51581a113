/**
 * Prove it: runs the checks of prove.ts on a snapshot of the draft in the background and
 * keeps the report, rewritten as each check finishes so the page and the CLI can follow.
 * Whether a flow is proven is read from fingerprints (proof-fingerprint.ts): the draft,
 * and each published version, are proven when a passed proof has their fingerprint.
 */
import { newId } from '../../ids.ts';
import type { Db } from '../../store/db.ts';
import type { FlowStore } from '../../store/flows.ts';
import { getProof, insertProof, latestFinishedProofs, listProofs, updateProof } from '../../store/proofs.ts';
import type { ProofRow } from '../../store/types.ts';
import { errorMessage, NotFoundError } from '../errors.ts';
import type { FlowDocument } from '../flow/document.ts';
import type { FlowService } from '../flow-service.ts';
import type { Clock } from '../types.ts';
import { proofFingerprint } from './proof-fingerprint.ts';
import { PROOF_CHECKS, type ProofReport } from './proof-report.ts';
import { runProofChecks, type ProverDeps } from './prove.ts';

export interface ProofServiceDeps extends Omit<ProverDeps, 'snapshot' | 'signal'> {
  db: Db;
  flows: FlowService;
  store: FlowStore;
  clock: Clock;
}

const reportOf = (row: ProofRow): ProofReport => ({ ...(row.report as ProofReport), status: row.status, finishedAt: row.finishedAt });

export function proofService(deps: ProofServiceDeps) {
  const { db, flows, store, clock } = deps;
  const running = new Map<string, Promise<void>>();
  // Stopping the process ends proofs in flight (their runs need the worker that stops too).
  const stopping = new AbortController();

  async function save(report: ProofReport) {
    await updateProof(db, report.id, { status: report.status, report, finishedAt: report.finishedAt });
  }

  return {
    /** Starts a proof of the draft as it is now; the report fills in as checks finish. */
    async start(flowId: string, options: { sample?: string; by?: string } = {}): Promise<{ proofId: string }> {
      const by = options.by ?? 'admin';
      const version = await flows.snapshotDraftForTest(flowId, by);
      const document = JSON.parse(version.document) as FlowDocument;
      const id = newId('proof');
      const report: ProofReport = {
        id, flowId, flowName: document.name, versionId: version.id, fingerprint: proofFingerprint(document),
        sample: options.sample ?? 'Sample input', status: 'running', checks: [],
        progress: { done: 0, total: PROOF_CHECKS.length, current: null },
        createdAt: clock.now(), finishedAt: null, createdBy: by, error: null,
      };
      await insertProof(db, { id, flowId, versionId: version.id, fingerprint: report.fingerprint, status: 'running', report, createdAt: report.createdAt, finishedAt: null, createdBy: by });
      const work = runProofChecks({ ...deps, snapshot: { version, document }, signal: stopping.signal }, report, save, options.sample)
        .then(async (finished) => save({ ...finished, status: finished.checks.every((check) => check.passed) ? 'passed' : 'failed', finishedAt: clock.now() }))
        .catch(async (error: unknown) => {
          deps.log.error({ err: error, proofId: id }, 'proof could not be carried out');
          await save({ ...report, status: 'failed', error: errorMessage(error), finishedAt: clock.now() }).catch(() => {});
        })
        .finally(() => running.delete(id));
      running.set(id, work);
      return { proofId: id };
    },

    async get(proofId: string): Promise<ProofReport> {
      const row = await getProof(db, proofId);
      if (!row) throw new NotFoundError(`There is no proof with id ${proofId}.`);
      return reportOf(row);
    },

    /** A flow's proofs, newest first. */
    async list(flowId: string): Promise<ProofReport[]> {
      return (await listProofs(db, flowId)).map(reportOf);
    },

    /**
     * Whether the draft is proven (a passed proof has its fingerprint), the newest proof,
     * and which published versions are proven: "v4 proven on 30 Nov", "changed since".
     */
    async status(flowId: string) {
      const flow = await flows.get(flowId);
      const [proofs, versions] = await Promise.all([listProofs(db, flowId, 50), store.versions(flowId)]);
      const passed = proofs.filter((proof) => proof.status === 'passed');
      const provenAt = (fingerprint: string) => passed.find((proof) => proof.fingerprint === fingerprint)?.finishedAt ?? null;
      const draftFingerprint = proofFingerprint(flow.draft);
      const latest = proofs[0] ? reportOf(proofs[0]) : null;
      return {
        draft: { fingerprint: draftFingerprint, provenAt: provenAt(draftFingerprint) },
        latest: latest && { id: latest.id, status: latest.status, createdAt: latest.createdAt, finishedAt: latest.finishedAt, fingerprint: latest.fingerprint },
        /** The last passed proof exists but the draft has changed since. */
        changedSinceProof: passed.length > 0 && provenAt(draftFingerprint) === null,
        versions: versions.map((version) => ({
          version: version.version,
          provenAt: provenAt(proofFingerprint(JSON.parse(version.document) as FlowDocument)),
        })),
      };
    },

    /** For the flow list: each flow's newest finished proof. */
    async latestByFlow(flowIds: readonly string[]) {
      const rows = await latestFinishedProofs(db, flowIds);
      return new Map(rows.map((row) => [row.flowId, { id: row.id, status: row.status, finishedAt: row.finishedAt, fingerprint: row.fingerprint }]));
    },

    /** Ends the proofs in flight; their reports say they could not finish. */
    async stop(): Promise<void> {
      stopping.abort(new Error('the server stopped while the proof was running'));
      await Promise.all(running.values());
    },
  };
}

export type ProofService = ReturnType<typeof proofService>;
