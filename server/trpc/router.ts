import { flowsRouter } from './flows.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  flows: flowsRouter,
});

export type AppRouter = typeof appRouter;
