/**
 * Rerun and replay on the fixed version. When a newer version is published than the one a
 * run used, a rerun or replay can take the latest (the default) or the one it ran. On
 * another version steps are matched by id and the run forgets the checkpoints that would
 * otherwise skip them, so the new version's steps really run:
 * - plain steps run again (they touch nothing outside Onceflow);
 * - side-effect steps go through the claim as always: work already done under an unchanged
 *   key comes back as a duplicate, a step whose rendered key changed acts again;
 * - delays already served, and steps a person decided to skip, keep their checkpoint;
 * - steps removed in the new version are not run (their checkpoints stay, unread).
 */
import type { FlowStore } from '../store/flows.ts';
import { NotFoundError } from './errors.ts';
import type { FlowPlan } from './flow-plan.ts';
import type { CheckpointRow, RunRow } from './types.ts';

export type VersionChoice = 'latest' | 'original';
export const VERSION_CHOICES = ['latest', 'original'] as const;

export interface VersionTarget {
  /** The version the new attempt or run uses. */
  versionId: string;
  version: number | null;
  /** The version the run used until now. */
  fromVersionId: string;
  fromVersion: number | null;
  /** The newest published version, and whether it is newer than the run's. */
  latestVersion: number | null;
  newerExists: boolean;
  switched: boolean;
}

/** Which version a rerun or replay of `run` uses; "latest" when none is named. */
export async function pickVersion(flows: Pick<FlowStore, 'version' | 'latestVersion'>, run: RunRow, choice: VersionChoice = 'latest'): Promise<VersionTarget> {
  // A test run stays on the draft it tested, never moving onto a live version; a changed
  // draft is tested by a new test run.
  const [current, latest] = await Promise.all([
    flows.version(run.versionId),
    run.testScope === null ? flows.latestVersion(run.flowId) : flows.version(run.versionId),
  ]);
  const fromVersion = current?.version ?? null;
  const newerExists = latest !== null && latest.id !== run.versionId && (fromVersion === null || latest.version > fromVersion);
  const target = choice === 'latest' && newerExists ? latest : null;
  if (choice === 'original' && !current) throw new NotFoundError(`The version run #${run.seq} used no longer exists; rerun it on the latest version.`);
  return {
    versionId: target?.id ?? run.versionId,
    version: target?.version ?? fromVersion,
    fromVersionId: run.versionId,
    fromVersion,
    latestVersion: latest?.version ?? null,
    newerExists,
    switched: target !== null,
  };
}

/** A delay already served, or a skip a person decided, is kept on any version. */
export function keptOnSwitch(checkpoint: CheckpointRow, type: string | undefined): boolean {
  if (type === 'delay') return true;
  if (checkpoint.status !== 'succeeded' && checkpoint.status !== 'skipped') return true;
  return checkpoint.status === 'skipped' && (checkpoint.output as { reason?: unknown } | null)?.reason === 'review';
}

/** The checkpoints to forget when the run moves to `plan`: finished steps the new version has too. */
export function checkpointsToForget(plan: FlowPlan, checkpoints: readonly CheckpointRow[]): string[] {
  const types = new Map([...plan.steps.values()].map((step) => [step.id, step.type]));
  // One item's run of a body step (`send@3`) is matched by its step's id.
  const stepOf = (nodeId: string) => nodeId.split('@')[0] ?? nodeId;
  return checkpoints
    .filter((checkpoint) => types.has(stepOf(checkpoint.nodeId)) && !keptOnSwitch(checkpoint, types.get(stepOf(checkpoint.nodeId))))
    .map((checkpoint) => checkpoint.nodeId);
}
