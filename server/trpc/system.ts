import { oldestKeptRun } from '../store/retention.ts';
import { queueStatus } from '../store/workers.ts';
import type { Services } from '../services.ts';
import { procedure, router } from './trpc.ts';

/** How long keys and runs are kept (ONCEFLOW_KEY_TTL, ONCEFLOW_RETENTION) and the oldest run still kept. */
async function keeping(services: Services) {
  return {
    keyTtl: services.env.ONCEFLOW_KEY_TTL,
    retention: services.env.ONCEFLOW_RETENTION ?? null,
    oldestKeptRun: await oldestKeptRun(services.db),
  };
}

export const systemRouter = router({
  /** Workers seen within three leases, queue depth and the oldest queued run; what is kept and for how long. */
  status: procedure.query(async ({ ctx }) => {
    const { services } = ctx;
    const now = services.clock.now();
    return { database: services.db.dialect, ...(await queueStatus(services.db, now, now - 3 * services.env.ONCEFLOW_LEASE_MS)), keeping: await keeping(services) };
  }),
  /** The runs page's line on what is kept: one indexed read. */
  keeping: procedure.query(({ ctx }) => keeping(ctx.services)),
});
