/** The webhook inbox of a flow: deliveries with their status and run, refusals, and replay. */
import type { Db } from '../store/db.ts';
import type { FlowStore } from '../store/flows.ts';
import { getDelivery, listDeliveries, listRejections } from '../store/inbound.ts';
import { NotFoundError } from './errors.ts';
import type { RunService } from './run-service.ts';
import type { VersionChoice } from './version-choice.ts';

export function inboxService(deps: { db: Db; flows: FlowStore; runs: RunService }) {
  return {
    async list(flowId: string, limit = 200) {
      const flow = await deps.flows.get(flowId);
      if (!flow) throw new NotFoundError(`There is no flow with id ${flowId}.`);
      const triggers = (await deps.flows.triggers(flowId)).filter((trigger) => trigger.kind !== 'trigger.manual');
      const hookIds = triggers.map((trigger) => trigger.hookId);
      const [deliveries, rejections] = await Promise.all([listDeliveries(deps.db, hookIds, limit), listRejections(deps.db, hookIds, limit)]);
      return {
        triggers,
        deliveries: deliveries.map((delivery) => ({
          ...delivery,
          status: delivery.duplicates > 0 ? (`duplicate ×${delivery.duplicates}` as const) : ('accepted' as const),
        })),
        rejections,
      };
    },

    /** A new run with the delivery's input, marked as a replay; its side effects come back as duplicates. */
    async replay(inboundId: string, by = 'admin', version?: VersionChoice, changes?: { body: unknown }) {
      const delivery = await getDelivery(deps.db, inboundId);
      if (!delivery) throw new NotFoundError(`There is no delivery with id ${inboundId} in the inbox.`);
      return deps.runs.replay(delivery.runId, by, version, changes);
    },
  };
}

export type InboxService = ReturnType<typeof inboxService>;
