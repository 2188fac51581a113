import { queueStatus } from '../store/workers.ts';
import { procedure, router } from './trpc.ts';

export const systemRouter = router({
  /** Workers seen within three leases, queue depth and the oldest queued run. */
  status: procedure.query(async ({ ctx }) => {
    const { services } = ctx;
    const now = services.clock.now();
    return { database: services.db.dialect, ...(await queueStatus(services.db, now, now - 3 * services.env.ONCEFLOW_LEASE_MS)) };
  }),
});
