/**
 * Executes one leased run from where its checkpoints say it is, one step at a time in the
 * flow's order. Each step is: already checkpointed → skipped; on an untaken branch →
 * skipped; without side effects → executed (retries are harmless); with side effects →
 * the claim protocol. The run ends succeeded, failed, waiting or needs_review, always
 * through a fenced journal flush, so a worker that lost the run writes nothing.
 */
import { MissingPathError } from './templates/render.ts';
import { isSideEffectStep } from './flow/document.ts';
import { errorMessage, NonRetriableError, UserError } from './errors.ts';
import type { FlowPlan } from './flow-plan.ts';
import { failStep, runSideEffectStep, type StepResult } from './protocol.ts';
import { ClaimFencedError, LeaseLostError, RunJournal } from './run-journal.ts';
import { collectSecretValues, type RenderContext } from './templates/render.ts';
import { createRenderer, masked, retryDelay, retryPolicy, type EngineDeps, type StepExecution } from './step-runtime.ts';
import { stepKind } from './steps/registry.ts';
import type { FlowEdge, FlowNode } from './flow/document.ts';
import type { CheckpointRow, RunRow } from './types.ts';
import { loadCheckpoints } from '../store/timeline.ts';

export interface RunInputs {
  run: RunRow;
  plan: FlowPlan;
  secrets: Record<string, string>;
  signal: AbortSignal;
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

export async function executeRun(deps: EngineDeps, inputs: RunInputs): Promise<void> {
  const { run } = inputs;
  const journal = new RunJournal(deps.db, run, deps.clock, deps.config.leaseMs);
  try {
    await walk(deps, inputs, journal);
  } catch (error) {
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

async function walk(deps: EngineDeps, { run, plan, secrets, signal }: RunInputs, journal: RunJournal): Promise<void> {
  const checkpoints = new Map<string, CheckpointRow>((await loadCheckpoints(deps.db, run.id)).map((row) => [row.nodeId, row]));
  const context: RenderContext = {
    trigger: triggerContext(run),
    steps: {},
    flow: { id: run.flowId, name: plan.document.name, versionId: run.versionId },
    secrets,
    run: { id: run.id, attempt: run.attempt },
    now: new Date(deps.clock.now()).toISOString(),
  };
  const secretValues = collectSecretValues(context);
  const render = createRenderer(context, deps.clock);
  journal.event('run.started', null, { attempt: run.attempt, resumed: run.leaseFence > 1, worker: run.leaseOwner, fence: run.leaseFence });

  // For each finished node: which of its outgoing handles are live (null = all, [] = none).
  const live = new Map<string, string | null | undefined>();
  const isLive = (edge: FlowEdge) => {
    if (!live.has(edge.source)) return false;
    const handle = live.get(edge.source);
    return handle === null || (handle !== undefined && edge.sourceHandle === handle);
  };

  for (const node of plan.order) {
    if (node.id === plan.trigger?.id) {
      context.steps[node.id] = { output: context.trigger };
      live.set(node.id, null);
      continue;
    }
    const incoming = plan.incoming.get(node.id) ?? [];
    if (!incoming.some(isLive)) {
      live.set(node.id, undefined);
      if (!checkpoints.has(node.id)) {
        journal.checkpoint(node.id, 'skipped', { reason: 'branch' });
        journal.event('step.skipped', node.id, { reason: 'branch' });
      }
      continue;
    }
    const previous = checkpoints.get(node.id);
    if (previous && (previous.status === 'succeeded' || previous.status === 'skipped')) {
      const output = previous.output as { result?: boolean; reason?: string; continue?: boolean } | null;
      journal.event('step.skipped', node.id, { reason: 'checkpoint', attempt: previous.attempt, status: previous.status });
      context.steps[node.id] = { output: previous.output };
      if (previous.status === 'skipped') live.set(node.id, output?.continue ? null : undefined);
      else live.set(node.id, node.type === 'condition' ? String(Boolean(output?.result)) : null);
      continue;
    }
    const result = await executeStep({ deps, journal, flow: plan.document, flowId: run.flowId, node, render, signal, secretValues }, previous);
    if (result.kind === 'ended') return;
    context.steps[node.id] = { output: result.output };
    live.set(node.id, result.stop ? undefined : (result.branch ?? null));
  }
  journal.event('run.succeeded', null, null);
  await journal.flush({ ending: { status: 'succeeded' } });
}

async function executeStep(step: StepExecution, previous: CheckpointRow | undefined): Promise<StepResult> {
  const { node, journal, deps } = step;
  const kind = stepKind(node.type);
  if (!kind) return failStep(step, `This server cannot run steps of kind "${node.type}".`);
  journal.event('step.started', node.id, null);
  let prepared: unknown;
  try {
    prepared = kind.prepare(node, step.render);
    if (isSideEffectStep(node)) return await runSideEffectStep(step, kind, prepared);
  } catch (error) {
    if (error instanceof MissingPathError || error instanceof UserError || error instanceof NonRetriableError) {
      return failStep(step, error.message, undefined, error instanceof MissingPathError ? { path: error.path } : {});
    }
    throw error;
  }
  return runPlainStep(step, kind, prepared, previous);
}

/** A step without side effects: repeating it is harmless, so it is retried freely. */
async function runPlainStep(step: StepExecution, kind: NonNullable<ReturnType<typeof stepKind>>, prepared: unknown, previous: CheckpointRow | undefined): Promise<StepResult> {
  const { node, journal, deps } = step;
  const policy = retryPolicy(node, deps.config);
  for (let attempt = 1; ; attempt++) {
    const outcome = await kind.execute(prepared, { runId: journal.run.id, flowId: step.flowId, nodeId: node.id, now: deps.clock.now, previous, signal: step.signal, services: deps.services });
    switch (outcome.kind) {
      case 'succeeded': {
        const output = masked(outcome.output, step.secretValues);
        if (outcome.stop) {
          journal.checkpoint(node.id, 'skipped', { ...(output as object), reason: outcome.skipReason ?? 'stopped' });
          journal.event('step.skipped', node.id, { reason: outcome.skipReason ?? 'stopped', output });
          return { kind: 'done', output, stop: true };
        }
        journal.checkpoint(node.id, 'succeeded', output);
        journal.event('step.succeeded', node.id, { output });
        return { kind: 'done', output, branch: outcome.branch };
      }
      case 'wait':
        journal.checkpoint(node.id, 'waiting', outcome.output);
        journal.event('step.waiting', node.id, { until: outcome.until, message: outcome.message });
        await journal.flush({ ending: { status: 'waiting', wakeAt: outcome.until } });
        return { kind: 'ended' };
      case 'not_done':
      case 'ambiguous':
        if (attempt <= policy.max) {
          const delayMs = retryDelay(policy, attempt, deps.config, outcome.kind === 'not_done' ? outcome.retryAfterMs : undefined);
          journal.event('step.retry_scheduled', node.id, { message: outcome.message, retry: attempt, delayMs });
          await deps.clock.sleep(delayMs);
          continue;
        }
        return failStep(step, outcome.message, undefined, { response: outcome.response });
      case 'failed':
        return failStep(step, outcome.message, undefined, { response: outcome.response });
    }
  }
}
