/**
 * The summed preview of a recovery: every included run planned by the same rule as the
 * per-run preview (rerun-preview.ts `planPreview`), its facts read in batches — runs,
 * checkpoints, began steps, claims and their owners in a few statements per 1,000 runs —
 * so 10,000 runs preview in well under the three seconds an operator waits.
 */
import type { Db } from '../../store/db.ts';
import { checkpointsOfRuns, selectRuns, startedStepsOfRuns } from '../../store/operations.ts';
import type { FlowPlan, PlanCache } from '../flow-plan.ts';
import { previewMany, type PreviewInput, type PreviewAction } from '../rerun-preview.ts';
import type { RunRow } from '../types.ts';
import { pickVersion, type VersionTarget } from '../version-choice.ts';
import { MAX_RECOVERY_RUNS, type AskedRecovery } from './request.ts';
import { rememberedVersions, type VersionLookups } from './versions.ts';

/**
 * Runs planned per round: their facts are read together, then let go. On SQLite every
 * statement answers at once, so a round runs without letting other requests in until it
 * ends: rounds stay small. On PostgreSQL each statement is a round trip that lets them in
 * anyway, so rounds are larger and the statements fewer.
 */
const ROUND = { sqlite: 100, postgresql: 1000 } as const;
/** Expired keys listed by name; beyond that only counted. */
const EXPIRED_LISTED = 200;

export interface ActingStep {
  nodeId: string;
  label: string;
  type: string;
  /** How many of the runs this step acts in (sends its email, calls its service…). */
  runs: number;
}

export interface ExpiredKey {
  runId: string;
  seq: number;
  nodeId: string;
  label: string;
  key: string;
}

export interface RecoveryPreview {
  runs: number;
  counts: Record<PreviewAction, number>;
  /** Side-effect steps that act, per step: "1,204 emails will be sent". */
  acting: ActingStep[];
  /** Steps that already acted and act again because their key changed. */
  warnings: number;
  /** Steps that act again because the record of their key expired, and the first of them by name. */
  expired: number;
  expiredKeys: ExpiredKey[];
  /** Runs that ran on an older version than the latest published. */
  onOlderVersion: number;
  /** Runs whose version no longer exists (they are left alone). */
  unavailable: number;
  /** More runs matched than one operation takes. */
  tooMany: boolean;
}

/** Read in pages, yielding between them: one read of 10,000 runs would hold every other request up. */
export async function selectRecoveryRuns(db: Db, asked: AskedRecovery): Promise<{ runs: RunRow[]; tooMany: boolean }> {
  const runs: RunRow[] = [];
  for (;;) {
    const page = await selectRuns(db, {
      ...(asked.flowId ? { flowId: asked.flowId } : {}), from: asked.from, to: asked.to, statuses: asked.statuses, triggerKinds: asked.triggerKinds,
      afterSeq: runs.at(-1)?.seq ?? 0, limit: ROUND[db.dialect],
    });
    runs.push(...page);
    if (page.length < ROUND[db.dialect] || runs.length > MAX_RECOVERY_RUNS) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { runs: runs.slice(0, MAX_RECOVERY_RUNS), tooMany: runs.length > MAX_RECOVERY_RUNS };
}

interface Planned {
  run: RunRow;
  target: VersionTarget;
  plan: FlowPlan;
  previousPlan: FlowPlan | null;
}

/** Each run's version target and plans; null when its version no longer exists. */
export async function planTargets(runs: readonly RunRow[], asked: AskedRecovery, flows: VersionLookups, plans: PlanCache): Promise<(Planned | null)[]> {
  return Promise.all(runs.map(async (run) => {
    const target = await pickVersion(flows, run, asked.version).catch(() => null);
    const plan = target ? await plans.get(target.versionId) : null;
    if (!target || !plan) return null;
    const previousPlan = target.switched ? await plans.get(target.fromVersionId) : null;
    return { run, target, plan, previousPlan };
  }));
}

export async function previewRecovery(db: Db, deps: { flows: VersionLookups; plans: PlanCache }, asked: AskedRecovery, selected?: { runs: RunRow[]; tooMany: boolean }): Promise<RecoveryPreview> {
  const { runs, tooMany } = selected ?? await selectRecoveryRuns(db, asked);
  const flows = rememberedVersions(deps.flows);
  const sum: RecoveryPreview = { runs: runs.length, counts: { skip: 0, deduplicate: 0, act: 0, review: 0 }, acting: [], warnings: 0, expired: 0, expiredKeys: [], onOlderVersion: 0, unavailable: 0, tooMany };
  const acting = new Map<string, ActingStep>();
  for (let start = 0; start < runs.length; start += ROUND[db.dialect]) {
    const round = runs.slice(start, start + ROUND[db.dialect]);
    const ids = round.map((run) => run.id);
    const [planned, checkpoints, began] = await Promise.all([planTargets(round, asked, flows, deps.plans), checkpointsOfRuns(db, ids), startedStepsOfRuns(db, ids)]);
    const inputs: PreviewInput[] = [];
    for (const item of planned) {
      if (!item) {
        sum.unavailable++;
        continue;
      }
      const { run, target, plan, previousPlan } = item;
      if (target.newerExists) sum.onOlderVersion++;
      const own = checkpoints.get(run.id) ?? [];
      inputs.push(asked.mode === 'rerun'
        ? { run, plan, ...(target.switched ? { switching: { previousPlan, fromVersion: target.fromVersion, toVersion: target.version } } : {}), checkpoints: own, began: began.get(run.id) ?? new Set() }
        // A replay is a new run: none of this run's checkpoints count, only the claims (and which keys it did).
        : { run: { ...run, id: `replay-preview-of-${run.id}`, versionId: target.versionId }, plan, checkpoints: [], began: new Set(), doneBefore: own });
    }
    const previews = await previewMany(db, inputs);
    previews.forEach((preview, index) => {
      const { run, plan } = inputs[index]!;
      for (const action of Object.keys(sum.counts) as PreviewAction[]) sum.counts[action] += preview.counts[action];
      sum.warnings += preview.warnings;
      sum.expired += preview.expired;
      for (const step of preview.steps) {
        if (step.sideEffect && step.action === 'act') {
          const entry = acting.get(step.nodeId) ?? { nodeId: step.nodeId, label: step.label, type: plan.steps.get(step.nodeId)?.type ?? 'step', runs: 0 };
          entry.runs++;
          acting.set(step.nodeId, entry);
        }
        if (step.expiredKey && sum.expiredKeys.length < EXPIRED_LISTED) {
          const original = asked.mode === 'replay' ? run.id.replace(/^replay-preview-of-/, '') : run.id;
          sum.expiredKeys.push({ runId: original, seq: run.seq, nodeId: step.nodeId, label: step.label, key: step.expiredKey });
        }
      }
    });
    // Planning is CPU work: let other requests in between rounds.
    await new Promise((resolve) => setImmediate(resolve));
  }
  sum.acting = [...acting.values()].sort((a, b) => b.runs - a.runs);
  return sum;
}
