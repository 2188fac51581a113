/**
 * The version part of a rerun, replay or preview: which version it uses, which checkpoints
 * the run forgets when it moves (version-choice.ts), and what the timeline records so the
 * run page can say "Rerun on v2 (was v1)" and why a step acts again.
 */
import type { Db, Sql } from '../store/db.ts';
import type { FlowStore } from '../store/flows.ts';
import { forgetCheckpoints, moveRunToVersion } from '../store/run-version.ts';
import { loadCheckpoints } from '../store/timeline.ts';
import { NotFoundError } from './errors.ts';
import type { PlanCache } from './flow-plan.ts';
import { previewRerun, type RerunPreview } from './rerun-preview.ts';
import type { RunRow } from './types.ts';
import { checkpointsToForget, pickVersion, type VersionChoice, type VersionTarget } from './version-choice.ts';

export interface VersionDeps {
  db: Db;
  flows: FlowStore;
  plans: PlanCache;
}

/** The version facts a new attempt's timeline event carries. */
export function versionEventData(target: VersionTarget, preview?: RerunPreview) {
  const keyChanges = (preview?.steps ?? [])
    .filter((step) => step.keyChange)
    .map((step) => ({ nodeId: step.nodeId, label: step.label, from: step.keyChange!.from, to: step.keyChange!.to }));
  return {
    version: target.version,
    ...(target.switched ? { fromVersion: target.fromVersion, versionId: target.versionId, fromVersionId: target.fromVersionId } : {}),
    // Kept on purpose although a newer one exists: the timeline says so, as it says a move.
    ...(!target.switched && target.newerExists ? { latestVersion: target.latestVersion } : {}),
    ...(keyChanges.length ? { keyChanges } : {}),
  };
}

/** What a rerun of `run` on the chosen version would do, with the version facts for the dialog. */
export async function previewOnVersion(deps: VersionDeps, run: RunRow, choice?: VersionChoice) {
  const target = await pickVersion(deps.flows, run, choice);
  const plan = await deps.plans.get(target.versionId);
  if (!plan) throw new NotFoundError(`The flow version of run #${run.seq} no longer exists.`);
  const previousPlan = target.switched ? await deps.plans.get(target.fromVersionId) : null;
  const preview = await previewRerun(deps.db, run, plan, target.switched ? { previousPlan, fromVersion: target.fromVersion, toVersion: target.version } : undefined);
  return { ...preview, target, version: { ran: target.fromVersion, uses: target.version, latest: target.latestVersion, newerExists: target.newerExists } };
}

/**
 * Moves the run to the target version inside the transaction that queues its new attempt.
 * The checkpoints to forget are read again here, so a step finished meanwhile is counted.
 */
export async function moveForRerun(tx: Sql, deps: Pick<VersionDeps, 'plans'>, run: RunRow, target: VersionTarget): Promise<void> {
  if (!target.switched) return;
  const plan = await deps.plans.get(target.versionId);
  if (!plan) throw new NotFoundError(`Version ${target.version} of this flow no longer exists.`);
  await forgetCheckpoints(tx, run.id, checkpointsToForget(plan, await loadCheckpoints(tx, run.id)));
  await moveRunToVersion(tx, run.id, target.versionId);
}

/**
 * A replay's input with an edited trigger body. A webhook run's input is the delivery
 * envelope ({ body, headers, receivedAt }, run-executor.ts `triggerContext`): only its
 * body is replaced, so the headers the flow reads stay as they came.
 */
export function withBody(run: RunRow, body: unknown): unknown {
  const input = run.input as { body?: unknown } | null;
  const isEnvelope = run.triggerKind === 'webhook' && typeof input === 'object' && input !== null && 'body' in input;
  return isEnvelope ? { ...input, body } : body;
}

/**
 * What a replay with `body` (or the run's own input) would do on the chosen version: the
 * keys the input renders and whether each was already done. The replay is a new run, so
 * nothing of this run's checkpoints counts; only the claims do.
 */
export async function previewReplay(deps: VersionDeps, run: RunRow, choice?: VersionChoice, changes?: { body: unknown }) {
  const target = await pickVersion(deps.flows, run, choice);
  const plan = await deps.plans.get(target.versionId);
  if (!plan) throw new NotFoundError(`The flow version of run #${run.seq} no longer exists.`);
  // A run that does not exist has no checkpoints and no step traces: exactly a new run.
  const replay: RunRow = { ...run, id: `replay-preview-of-${run.id}`, versionId: target.versionId, input: changes ? withBody(run, changes.body) : run.input };
  // A key the replayed run did whose claim is gone acts again: the preview says it expired.
  const preview = await previewRerun(deps.db, replay, plan, undefined, { doneBefore: await loadCheckpoints(deps.db, run.id) });
  return { ...preview, version: { ran: target.fromVersion, uses: target.version, latest: target.latestVersion, newerExists: target.newerExists } };
}
