/**
 * One batch of a recovery, in one transaction: the batch's pending rows are claimed, the
 * operation is counted forward only while it is still running (a Cancel in between means
 * nothing of this batch starts), then the runs are rerun (all in one statement, moved to
 * the target version as `moveForRerun` would move one) or replayed as one person's rerun or
 * replay would be, and the rows record what became of each. Either the whole
 * batch commits or none of it: no run is ever half-started.
 */
import { newId } from '../../ids.ts';
import type { Db } from '../../store/db.ts';
import {
  checkpointsOfRuns, claimPendingOperationRuns, countOperationProgress, moveRunsForRerun, recordOperationRuns, requeueRuns, runsByIds, type SettledOperationRun,
} from '../../store/operations.ts';
import { insertRun } from '../../store/runs.ts';
import { insertEvents } from '../../store/timeline.ts';
import type { OperationRunRow } from '../../store/types.ts';
import type { PlanCache } from '../flow-plan.ts';
import type { Clock, RunRow, TimelineEvent } from '../types.ts';
import { checkpointsToForget, pickVersion, type VersionTarget } from '../version-choice.ts';
import { versionEventData } from '../version-rerun.ts';
import { stillMatches, type AskedRecovery } from './request.ts';
import type { VersionLookups } from './versions.ts';

export interface BatchDeps {
  db: Db;
  flows: VersionLookups;
  plans: PlanCache;
  clock: Clock;
}

export interface OperationRef {
  id: string;
  name: string;
  by: string;
  asked: AskedRecovery;
}

/** 'cancelled' when the operation stopped before this batch; otherwise how many runs it queued. */
export async function queueBatch(deps: BatchDeps, operation: OperationRef, rows: readonly OperationRunRow[]): Promise<number | 'cancelled'> {
  const { db, plans, clock } = deps;
  const ids = rows.map((row) => row.runId);
  // Version targets are read before the transaction: it then only writes.
  const runs = new Map((await runsByIds(db, ids)).map((run) => [run.id, run]));
  const targets = new Map<string, VersionTarget | null>();
  await Promise.all([...runs.values()].map(async (run) => {
    targets.set(run.id, await pickVersion(deps.flows, run, operation.asked.version).catch(() => null));
  }));
  return db.transaction(async (tx) => {
    const won = await claimPendingOperationRuns(tx, operation.id, rows.map((row) => row.position));
    if (!(await countOperationProgress(tx, operation.id, won.size))) return 'cancelled';
    const settled: SettledOperationRun[] = [];
    const events: TimelineEvent[] = [];
    const now = clock.now();
    const pass = (row: OperationRunRow, note: string) => settled.push({ position: row.position, state: 'passed', targetRunId: null, attempt: null, note });
    const eligible: { row: OperationRunRow; run: RunRow; target: VersionTarget }[] = [];
    for (const row of rows) {
      if (!won.has(row.position)) continue;
      const run = runs.get(row.runId);
      const target = targets.get(row.runId);
      if (!run) { pass(row, 'The run no longer exists.'); continue; }
      if (!target || !(await plans.get(target.versionId))) { pass(row, `The version run #${run.seq} used no longer exists.`); continue; }
      if (!stillMatches(operation.asked, run.status)) {
        pass(row, `Run #${run.seq} was ${run.status.replace('_', ' ')} by then, so it was left alone.`);
        continue;
      }
      eligible.push({ row, run, target });
    }
    const marker = { operationId: operation.id, operation: operation.name };
    if (operation.asked.mode === 'rerun') {
      // One statement moves the whole batch; a run changed meanwhile stays as it is.
      const moved = await requeueRuns(tx, eligible.map(({ run }) => run.id), operation.asked.statuses);
      const switching = eligible.filter(({ run, target }) => moved.has(run.id) && target.switched);
      // The checkpoints to forget are read here, in the transaction, so a step finished meanwhile is counted.
      const checkpoints = await checkpointsOfRuns(tx, switching.map(({ run }) => run.id));
      const forget: [string, string][] = [];
      for (const { run, target } of switching) {
        const plan = (await plans.get(target.versionId))!;
        for (const nodeId of checkpointsToForget(plan, checkpoints.get(run.id) ?? [])) forget.push([run.id, nodeId]);
      }
      await moveRunsForRerun(tx, forget, switching.map(({ run, target }) => [run.id, target.versionId] as const));
      for (const { row, run, target } of eligible) {
        if (!moved.has(run.id)) {
          pass(row, `Run #${run.seq} changed just then, so it was left alone.`);
          continue;
        }
        events.push({ runId: run.id, type: 'run.rerun', nodeId: null, attempt: run.attempt + 1, data: { by: operation.by, previousStatus: run.status, bulk: true, ...marker, ...versionEventData(target) }, createdAt: now });
        settled.push({ position: row.position, state: 'queued', targetRunId: run.id, attempt: run.attempt + 1, note: null });
      }
    } else {
      for (const { row, run, target } of eligible) {
        const id = newId('run');
        await insertRun(tx, {
          id, flowId: run.flowId, versionId: target.versionId, input: run.input, triggerKind: run.triggerKind, triggerNode: run.triggerNode,
          eventId: run.eventId, replayOf: run.id, createdAt: now, createdBy: operation.by,
        });
        settled.push({ position: row.position, state: 'queued', targetRunId: id, attempt: 1, note: null });
      }
    }
    await insertEvents(tx, events);
    await recordOperationRuns(tx, operation.id, settled);
    return settled.filter((row) => row.state === 'queued').length;
  });
}
