/**
 * How a step of a test run reaches the outside: a test run that sends to the stand-ins
 * (the default) hands network steps to them instead of the services the steps name, and
 * state transitions move a test's own copy of each record; a live run, or a test the person chose to run
 * against the real services, performs the step as written.
 */
import type { StepExecution } from '../step-runtime.ts';
import { masked } from '../step-runtime.ts';
import type { StepIO, StepKind, StepOutcome, StepServices } from '../steps/types.ts';
import type { RunRow } from '../types.ts';
import { deliverToStandIn } from './stand-ins.ts';
import { testScoped } from './test-scope.ts';

export async function performStep(step: StepExecution, kind: StepKind, prepared: unknown, io: StepIO): Promise<StepOutcome> {
  const { run } = step.journal;
  if (run.testTargets === 'stand-ins' && !onlyReads(step, prepared)) {
    const delivered = await deliverToStandIn(step.deps.db, step.deps.clock.now(), {
      stepType: step.node.type,
      request: masked(kind.describe(prepared), step.secretValues) as Record<string, unknown>,
      key: io.key,
      honoursKey: kind.honoursKey(step.node),
      runId: run.id,
      nodeId: step.node.id,
    });
    if (delivered) return delivered.outcome;
  }
  return kind.execute(prepared, io);
}

/**
 * A GET (or HEAD) reads, so a test may make it for real: later steps need what it reads.
 * Every other call goes to a stand-in in a test, marked as a side effect or not — a POST
 * someone forgot to mark would otherwise really be sent.
 */
function onlyReads(step: StepExecution, prepared: unknown): boolean {
  if (step.node.type !== 'http.request') return false;
  const method = (prepared as { method?: unknown }).method;
  return method === 'GET' || method === 'HEAD';
}

/**
 * The services a run's steps use. A test run's entities are kept apart from live ones,
 * and it does not wait out its delays (a follow-up "in 2 days" is tested now).
 */
export function servicesForRun(services: StepServices, run: Pick<RunRow, 'testScope'>): StepServices {
  const transition = services.transitionEntity;
  const { testScope } = run;
  if (testScope === null) return services;
  return {
    ...services,
    skipDelays: true,
    ...(transition ? { transitionEntity: (request) => transition({ ...request, scope: testScoped({ testScope }, request.scope) }) } : {}),
  };
}
