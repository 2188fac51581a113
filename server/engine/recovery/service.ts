/**
 * Recoveries: preview a time window, start it as an operation that runs in the background
 * (runner.ts), follow its progress, cancel it, and read its report.
 */
import { newId } from '../../ids.ts';
import type { Db } from '../../store/db.ts';
import { finishOperation, getOperation, insertOperation, insertOperationRuns, listOperations } from '../../store/operations.ts';
import type { OperationRow } from '../../store/types.ts';
import { NotFoundError, UserError } from '../errors.ts';
import type { PlanCache } from '../flow-plan.ts';
import type { Clock } from '../types.ts';
import { previewRecovery, selectRecoveryRuns, type RecoveryPreview } from './preview.ts';
import { buildReport, reportCsv } from './report.ts';
import { settleRequest, type RecoveryRequest } from './request.ts';
import type { OperationRunner } from './runner.ts';
import type { VersionLookups } from './versions.ts';

export interface RecoveryDeps {
  db: Db;
  flows: VersionLookups & { get(id: string): Promise<unknown> };
  plans: PlanCache;
  clock: Clock;
  runner: OperationRunner;
}

/** What a page shows of an operation while it runs. */
export function progressOf(operation: OperationRow) {
  const { request, preview, ...head } = operation;
  return { ...head, asked: request, preview: preview as RecoveryPreview | null };
}

export function recoveryService({ db, flows, plans, clock, runner }: RecoveryDeps) {
  async function requireOperation(id: string): Promise<OperationRow> {
    const operation = await getOperation(db, id);
    if (!operation) throw new NotFoundError(`There is no operation with id ${id}.`);
    return operation;
  }
  async function settle(request: RecoveryRequest) {
    if (request.flowId && !(await flows.get(request.flowId))) throw new NotFoundError(`There is no flow with id ${request.flowId}.`);
    return settleRequest(request, clock.now());
  }

  return {
    /** The summed preview of what the recovery would do, before anything starts. */
    async preview(request: RecoveryRequest): Promise<RecoveryPreview> {
      return previewRecovery(db, { flows, plans }, await settle(request));
    },

    /** Records the operation with its runs and preview, and starts it in the background. */
    async start(request: RecoveryRequest, by = 'admin') {
      const asked = await settle(request);
      const selected = await selectRecoveryRuns(db, asked);
      if (selected.tooMany) throw new UserError('More than 50,000 runs match: choose a shorter time window or one flow, and recover the rest in a second operation.');
      if (selected.runs.length === 0) throw new UserError('No run matches these choices, so there is nothing to recover.');
      const preview = await previewRecovery(db, { flows, plans }, asked, selected);
      const operation: OperationRow = {
        id: newId('op'), kind: 'recover', name: asked.name, request: asked, preview, status: 'running', total: selected.runs.length, done: 0,
        error: null, createdBy: by, createdAt: clock.now(), finishedAt: null, cancelledBy: null,
      };
      await db.transaction(async (tx) => {
        await insertOperation(tx, operation);
        await insertOperationRuns(tx, operation.id, selected.runs.map((run) => run.id));
      });
      runner.launch(operation.id);
      return progressOf(operation);
    },

    async get(id: string) {
      return progressOf(await requireOperation(id));
    },

    async list(limit = 50) {
      return (await listOperations(db, Math.min(limit, 200))).map(progressOf);
    },

    /** Stops before the next batch; the runs already queued go on as any run does. */
    async cancel(id: string, by = 'admin') {
      const operation = await requireOperation(id);
      if (!(await finishOperation(db, id, 'cancelled', clock.now(), null, by))) {
        throw new UserError(`“${operation.name}” is already ${(await requireOperation(id)).status}, so there is nothing to cancel.`);
      }
      await runner.settled(id);
      return progressOf(await requireOperation(id));
    },

    async report(id: string) {
      return buildReport(db, plans, await requireOperation(id));
    },

    async reportCsv(id: string) {
      return reportCsv(await buildReport(db, plans, await requireOperation(id)));
    },
  };
}

export type RecoveryService = ReturnType<typeof recoveryService>;
