/**
 * The probe process of Prove it (engine/test-mode/probe-launcher.ts starts it): a worker
 * on the server's database that takes only the one held test run it is given. The proof
 * sets a crash point, so it normally dies by SIGKILL mid-run, right after a step acted;
 * it leaves on its own once the run is no longer its to run. Its own entry, loading no
 * more than a worker needs, so it starts quickly.
 */
import { readEnv } from './env.ts';
import { createServices } from './services.ts';
import { leaseHeldRun } from './store/probe-runs.ts';
import { getRun } from './store/runs.ts';

const runId = process.argv[2];
if (!runId) {
  console.error('The probe is started by Prove it, with the id of a held test run.');
  process.exit(1);
}
const services = await createServices(readEnv());
const worker = services.createWorker({ concurrency: 1, lease: (request) => leaseHeldRun(services.db, runId, request) });
worker.start();
const deadline = Date.now() + 30_000;
for (;;) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const run = await getRun(services.db, runId);
  const mine = run?.status === 'held' || (run?.status === 'running' && run.leaseOwner === worker.id);
  if (!mine || Date.now() > deadline) break;
}
await services.close();
