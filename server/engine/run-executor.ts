/**
 * Executes one leased run from where its checkpoints say it is, one step at a time in the
 * flow's order. Each step is: already checkpointed → skipped; on an untaken branch →
 * skipped; without side effects → executed (retries are harmless); with side effects →
 * the claim protocol. The run ends succeeded, failed, waiting or needs_review, always
 * through a fenced journal flush, so a worker that lost the run writes nothing.
 */
import { errorMessage, NonRetriableError, UserError } from './errors.ts';
import type { FlowEdge } from './flow/document.ts';
import type { PlannedStep } from './flow/planned-step.ts';
import type { FlowPlan } from './flow-plan.ts';
import { decideOutcome, retryPolicy } from './outcomes.ts';
import { runSideEffectStep } from './protocol.ts';
import { holdIfPaused } from './flow-pause.ts';
import type { FlowPause } from '../store/pause.ts';
import { retryLaterDelays } from '../../core/retry-later.ts';
import { failRun, type RunEnded } from './run-endings.ts';
import { ClaimFencedError, LeaseLostError, RunCancelledError, RunJournal, type StepJournal } from './run-journal.ts';
import { createRenderer, masked, type EngineDeps, type StepExecution, type StepResult } from './step-runtime.ts';
import { stepKind } from './steps/registry.ts';
import { performStep, servicesForRun } from './test-mode/perform.ts';
import type { Renderer, StepKind } from './steps/types.ts';
import { runForEach } from './for-each.ts';
import { FLOW_RUN, FOR_EACH } from '../../core/step-kinds.ts';
import { runFlowStep } from './steps/child-run.ts';
import { collectSecretValues, MissingPathError, type RenderContext } from '../../core/templates/render.ts';
import type { CheckpointRow, RunRow } from './types.ts';
import { loadCheckpoints } from '../store/timeline.ts';

export interface RunInputs {
  run: RunRow;
  plan: FlowPlan;
  secrets: Record<string, string>;
  signal: AbortSignal;
  /** The flow's pause as the lease read it (null: not paused); absent, it is read before the first step. */
  pauseAtLease?: FlowPause | null;
  /** Called when the run starts writing its ending (RunJournal.onEnding). */
  onEnding?: () => void;
}

interface TriggerInput {
  body?: unknown;
  headers?: Record<string, unknown>;
  receivedAt?: string;
}

/** A run's input is the trigger's body, or { body, headers, receivedAt } for webhooks. */
export function triggerContext(run: RunRow): RenderContext['trigger'] {
  const input = (run.input ?? {}) as TriggerInput & Record<string, unknown>;
  const isEnvelope = run.triggerKind === 'webhook' && typeof input === 'object' && 'body' in input;
  return {
    body: isEnvelope ? input.body : run.input,
    headers: (isEnvelope ? input.headers : undefined) ?? {},
    eventId: run.eventId ?? undefined,
    receivedAt: (isEnvelope ? input.receivedAt : undefined) ?? new Date(run.createdAt).toISOString(),
  };
}

export async function executeRun(engine: EngineDeps, inputs: RunInputs): Promise<void> {
  const { run } = inputs;
  const deps = { ...engine, services: servicesForRun(engine.services, run) };
  const journal = new RunJournal(deps.db, run, deps.clock, deps.config.leaseMs, deps.metrics);
  journal.planSteps = inputs.plan.order.filter((step) => step.id !== inputs.plan.trigger?.id).map((step) => step.id);
  journal.retryLaterMs = retryLaterDelays(inputs.plan.document.settings);
  journal.onEnding = inputs.onEnding;
  try {
    await walk(deps, inputs, journal);
  } catch (error) {
    if (error instanceof RunCancelledError) {
      deps.log.info({ runId: run.id }, 'run cancelled; the acting step was recorded');
      return;
    }
    if (error instanceof LeaseLostError || error instanceof ClaimFencedError) {
      // Someone else holds the run or the claim now; whatever this worker saw is void.
      deps.log.warn({ runId: run.id, reason: error.message }, 'stale write refused; abandoning run');
      return;
    }
    deps.log.error({ err: error, runId: run.id }, 'run failed unexpectedly');
    journal.event('run.failed', null, { message: `Unexpected error: ${errorMessage(error)}` });
    await journal.flush({ ending: { status: 'failed', error: errorMessage(error) } }).catch(() => {});
  }
}

/** The exit a step's output took (null: all of them); only kinds with several exits choose. */
function exitTaken(step: PlannedStep, output: unknown): string | null {
  const kind = step.problem === undefined ? stepKind(step) : undefined;
  return kind?.branchOf?.(output) ?? null;
}

async function walk(deps: EngineDeps, inputs: RunInputs, journal: RunJournal): Promise<void> {
  const { run, plan, secrets, pauseAtLease } = inputs;
  // A run leased for the first time in its first attempt has recorded nothing yet (every
  // way a checkpoint is written — a step, a review, a rerun's move — comes after a lease),
  // so its checkpoints are not read: one statement fewer for each new run.
  const fresh = run.attempt === 1 && run.leaseFence === 1;
  const checkpoints = new Map<string, CheckpointRow>(fresh ? [] : (await loadCheckpoints(deps.db, run.id)).map((row) => [row.nodeId, row]));
  const context: RenderContext = {
    trigger: triggerContext(run),
    steps: {},
    flow: { id: run.flowId, name: plan.document.name, versionId: run.versionId },
    secrets,
    run: { id: run.id, attempt: run.attempt },
    now: new Date(deps.clock.now()).toISOString(),
  };
  const secretValues = collectSecretValues(context);
  // A paused flow's run holds before it starts (it may have been queued just before the
  // pause, or woken from a delay) and between steps; Resume queues it again.
  if (await holdIfPaused(deps.db, journal, pauseAtLease)) return;
  journal.event('run.started', null, { attempt: run.attempt, resumed: run.leaseFence > 1, worker: run.leaseOwner, fence: run.leaseFence });
  // The run's signal is read only when a step asks for it (worker.ts, executeRun's caller).
  const top: StepWalk = { deps, run, plan, journal, checkpoints, context, render: createRenderer(context, deps.clock), get signal() { return inputs.signal; }, secretValues };
  const walked = await walkSteps(top, plan.order, { checkPause: true });
  if (walked.kind === 'ended') return;
  journal.event('run.succeeded', null, null);
  await journal.flush({ ending: { status: 'succeeded' } });
}

/** What walking a list of steps needs: the run's top level, or one item of a For each step. */
export interface StepWalk {
  deps: EngineDeps;
  run: RunRow;
  plan: FlowPlan;
  journal: StepJournal;
  checkpoints: ReadonlyMap<string, CheckpointRow>;
  context: RenderContext;
  render: Renderer;
  signal: AbortSignal;
  secretValues: string[];
  /** Inside a body: the item's position, which names its checkpoints (`send@3`). */
  item?: number;
}

export interface WalkOptions {
  /** Steps that start without an edge leading in (a body's roots). */
  roots?: ReadonlySet<string>;
  /** Hold a paused flow's run between steps (top level only). */
  checkPause?: boolean;
}

/**
 * Walks steps in order: checkpointed → skipped; on an untaken branch → skipped; otherwise
 * executed. Done carries the output of the last step that ran (a body's result per item).
 */
export async function walkSteps(walk: StepWalk, steps: readonly PlannedStep[], options: WalkOptions = {}): Promise<{ kind: 'done'; output: unknown } | RunEnded> {
  const { deps, plan, journal, checkpoints, context } = walk;
  let checkPause = false;
  let last: unknown = null;
  // For each finished step: which of its exits are live (null = all, undefined = none).
  const live = new Map<string, string | null | undefined>();
  const isLive = (edge: FlowEdge) => {
    if (!live.has(edge.source)) return false;
    const handle = live.get(edge.source);
    return handle === null || (handle !== undefined && edge.sourceHandle === handle);
  };

  for (const planned of steps) {
    if (planned.id === plan.trigger?.id) {
      context.steps[planned.id] = { output: context.trigger };
      live.set(planned.id, null);
      continue;
    }
    // Inside a body each item's run of a step is its own: `send@3` names its checkpoint,
    // events and claim owner; the key's scope stays the step's (claim-reference.ts).
    const step: PlannedStep = walk.item === undefined ? planned : { ...planned, id: `${planned.id}@${walk.item}`, bodyStepId: planned.id };
    const incoming = plan.incoming.get(planned.id) ?? [];
    if (!options.roots?.has(planned.id) && !incoming.some(isLive)) {
      live.set(planned.id, undefined);
      if (!checkpoints.has(step.id)) {
        journal.checkpoint(step.id, 'skipped', { reason: 'branch' });
        journal.event('step.skipped', step.id, { reason: 'branch' });
      }
      continue;
    }
    const previous = checkpoints.get(step.id);
    if (previous && (previous.status === 'succeeded' || previous.status === 'skipped')) {
      journal.event('step.skipped', step.id, { reason: 'checkpoint', attempt: previous.attempt, status: previous.status });
      context.steps[planned.id] = { output: previous.output };
      // A skip decided in review lets its branch go on; any other skipped step stopped it.
      const continues = previous.status === 'skipped' && Boolean((previous.output as { continue?: boolean } | null)?.continue);
      live.set(planned.id, previous.status === 'succeeded' ? exitTaken(step, previous.output) : continues ? null : undefined);
      if (previous.status === 'succeeded') last = previous.output;
      continue;
    }
    if (step.problem !== undefined) return failRun(journal, step.id, step.problem);
    if (options.checkPause && checkPause && journal instanceof RunJournal && (await holdIfPaused(deps.db, journal))) return { kind: 'ended' };
    checkPause = true;
    const execution: StepExecution = { deps, journal, flowId: walk.run.flowId, node: step, render: walk.render, get signal() { return walk.signal; }, secretValues: walk.secretValues };
    const result = step.type === FOR_EACH.type ? await runForEach(walk, step, walkSteps)
      : step.type === FLOW_RUN.type ? await runFlowStep(execution, previous)
      : await executeStep(execution, previous);
    if (result.kind === 'ended') return result;
    context.steps[planned.id] = { output: result.output };
    live.set(planned.id, result.stop ? undefined : exitTaken(step, result.output));
    if (!result.stop) last = result.output;
  }
  return { kind: 'done', output: last };
}

export async function executeStep(step: StepExecution, previous: CheckpointRow | undefined): Promise<StepResult> {
  const { node, journal } = step;
  const kind = stepKind(node);
  if (!kind) return failRun(journal, node.id, `This server cannot run steps of kind "${node.type}".`);
  journal.event('step.started', node.id, null);
  let prepared: unknown;
  try {
    prepared = kind.prepare(node, step.render);
    if (node.sideEffect) return await runSideEffectStep(step, kind, prepared);
  } catch (error) {
    if (error instanceof MissingPathError || error instanceof UserError || error instanceof NonRetriableError) {
      return failRun(journal, node.id, error.message, { details: error instanceof MissingPathError ? { path: error.path } : {} });
    }
    throw error;
  }
  return runPlainStep(step, kind, prepared, previous);
}

/** A step without side effects: repeating it is harmless, so it is retried freely. */
async function runPlainStep(step: StepExecution, kind: StepKind, prepared: unknown, previous: CheckpointRow | undefined): Promise<StepResult> {
  const { node, journal, deps } = step;
  const context = { policy: retryPolicy(node, deps.config), sideEffect: false, honoursKey: false, onUncertain: 'review' } as const;
  for (let attempt = 1; ; attempt++) {
    // A test's calls go to the stand-ins, marked as side effects or not (test-mode/perform.ts).
    const outcome = await performStep(step, kind, prepared, { runId: journal.run.id, flowId: step.flowId, nodeId: node.id, now: deps.clock.now, previous, get signal() { return step.signal; }, services: deps.services });
    const decision = decideOutcome(outcome, { ...context, attempt });
    switch (decision.action) {
      case 'record': {
        const { stop, skipReason = 'stopped' } = decision.outcome;
        const output = masked(decision.outcome.output, step.secretValues);
        if (stop) {
          journal.checkpoint(node.id, 'skipped', { ...(output as object), reason: skipReason });
          journal.event('step.skipped', node.id, { reason: skipReason, output });
          return { kind: 'done', output, stop: true };
        }
        journal.checkpoint(node.id, 'succeeded', output);
        journal.event('step.succeeded', node.id, { output });
        return { kind: 'done', output };
      }
      case 'park': {
        const { until, output, message } = decision.outcome;
        journal.checkpoint(node.id, 'waiting', output);
        journal.event('step.waiting', node.id, { until, message });
        await journal.flush({ ending: { status: 'waiting', wakeAt: until } });
        return { kind: 'ended' };
      }
      case 'retry':
        journal.event('step.retry_scheduled', node.id, { message: decision.message, retry: attempt, delayMs: decision.delayMs });
        await deps.clock.sleep(decision.delayMs);
        continue;
      case 'fail':
        return failRun(journal, node.id, decision.message, { details: { response: decision.response } });
      case 'review':
        throw new Error('A step without side effects is repeated, never reviewed; decideOutcome retries it instead.');
    }
  }
}
