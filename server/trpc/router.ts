import { flowsRouter } from './flows.ts';
import { runsRouter } from './runs.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  flows: flowsRouter,
  runs: runsRouter,
});

export type AppRouter = typeof appRouter;
