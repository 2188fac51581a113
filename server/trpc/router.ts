import { alertsRouter } from './alerts.ts';
import { eventsRouter } from './events.ts';
import { flowsRouter } from './flows.ts';
import { operationsRouter } from './operations.ts';
import { galleryRouter } from './gallery.ts';
import { proofsRouter } from './proofs.ts';
import { runsRouter } from './runs.ts';
import { sandboxRouter } from './sandbox.ts';
import { sandboxAddressesQuery } from './sandbox-addresses.ts';
import { secretAdminRouter } from './secret-admin.ts';
import { secretsRouter } from './secrets.ts';
import { stepsRouter } from './steps.ts';
import { systemRouter } from './system.ts';
import { testRunsRouter } from './test-runs.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  flows: flowsRouter,
  runs: runsRouter,
  tests: testRunsRouter,
  proofs: proofsRouter,
  operations: operationsRouter,
  events: eventsRouter,
  gallery: galleryRouter,
  secrets: secretsRouter,
  secretAdmin: secretAdminRouter,
  system: systemRouter,
  steps: stepsRouter,
  sandbox: sandboxRouter,
  sandboxAddresses: sandboxAddressesQuery,
  alerts: alertsRouter,
});

export type AppRouter = typeof appRouter;
