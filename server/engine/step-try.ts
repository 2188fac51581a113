/**
 * Try this step: the selected step of the draft rendered against one of the flow's
 * samples — and, for `steps.<id>.output`, the outputs of the flow's last run started
 * from the editor — exactly as a run would render it, without a run, a claim or a call.
 * It shows what the step would send (method, address, headers, body, the key and its
 * scope), or for a step that changes nothing outside, what it would compute.
 *
 * Secret values are rendered (so encoded forms such as Basic credentials come out as a
 * run makes them) and then masked with every form of them, before anything leaves here.
 * A missing path is a sentence naming the path, never an error thrown at the caller.
 */
import { MissingPathError, collectSecretValues, type RenderContext } from '../../core/templates/render.ts';
import { TemplateSyntaxError } from '../../core/templates/parse.ts';
import type { Db } from '../store/db.ts';
import { latestRunOfKind } from '../store/editor-runs.ts';
import { readEntity } from '../store/entities.ts';
import type { FlowStore } from '../store/flows.ts';
import { loadCheckpoints } from '../store/timeline.ts';
import { claimReference } from './claim-reference.ts';
import { NonRetriableError, NotFoundError, UserError } from './errors.ts';
import { flowDocumentSchema, type FlowDocument } from './flow/document.ts';
import { isTriggerType } from './flow/node-types.ts';
import { planStep, type TypedStep } from './flow/planned-step.ts';
import { findSample } from './flow/samples.ts';
import { createRenderer, masked } from './step-runtime.ts';
import { conditionDecision, emailView, httpView, messageView, transitionDecision, type TriedEmail, type TriedRequest } from './step-try-views.ts';
import type { Comparison } from './steps/condition.ts';
import type { EmailAction } from './steps/email-send.ts';
import type { HttpAction } from './steps/http-request.ts';
import type { MessageAction } from './steps/message-post.ts';
import { stepKind } from './steps/registry.ts';
import type { StepKind } from './steps/types.ts';
import { deliverToStandIn, STAND_IN_LABELS } from './test-mode/stand-ins.ts';
import { EDITOR_TEST_SCOPE, receiverKeyFor } from './test-mode/test-scope.ts';
import { checkRenderedKey } from './templates/lint-key.ts';
import type { Clock, RunRow } from './types.ts';
import { explainMissingForTry, type MissingContext } from './step-try-words.ts';

export type { TriedEmail, TriedHeader, TriedRequest } from './step-try-views.ts';

/** The trigger kind of runs started from the editor, whose outputs later steps are rendered with. */
const EDITOR_RUN_KIND = 'manual';
// Fixed, so the same step and sample always show the same thing.
const TRY_RUN_ID = 'try-this-step';

export interface StepTryRequest {
  flowId: string;
  nodeId: string;
  /** The document as it is on the canvas; the saved draft when left out. */
  document?: unknown;
  /** The sample's name (default: the flow's sample input). */
  sample?: string;
}

export interface StepTry {
  nodeId: string;
  label: string;
  type: string;
  sample: string;
  /** The run whose step outputs stood for earlier steps; null when the flow has none. */
  earlierRun: { id: string; number: number } | null;
  /** Whether this step changes something outside Onceflow (so it has a key). */
  sideEffect: boolean;
  request?: TriedRequest;
  email?: TriedEmail;
  /** What a step that changes nothing outside would compute (a transform's outputs, a condition's exit). */
  output?: unknown;
  /** What the step would decide, in words. */
  decision?: string;
  /** The key and scope a live run claims, and the key an editor test run passes instead (test-mode/test-scope.ts). */
  key?: { key: string; scope: string; header: string | null; testKey: string };
  /** What could not be filled in or used, in words; the parts that could are still shown. */
  problems: string[];
}

export interface StepTryDeps {
  db: Db;
  flows: Pick<FlowStore, 'get'>;
  secrets: () => Promise<Record<string, string>>;
  clock: Clock;
}

/** What a stand-in answered to a step sent to it from Try this step. */
export interface StandInTry {
  tried: StepTry;
  /** Null when the step could not be rendered, or reaches nothing outside Onceflow. */
  standIn: { name: string; label: string; repeated: boolean; answer: unknown; keySent: string | null } | null;
}

export function stepTryService(deps: StepTryDeps) {
  /** The step rendered, before masking: what both trying and sending to a stand-in start from. */
  async function prepareTry(request: StepTryRequest) {
    const doc = await documentFor(deps, request);
    const node = doc.nodes.find((candidate) => candidate.id === request.nodeId);
    if (!node) throw new NotFoundError(`There is no step "${request.nodeId}" in this flow; it may have been deleted.`);
    const sample = findSample(doc, request.sample);
    const run = await latestRunOfKind(deps.db, request.flowId, EDITOR_RUN_KIND);
    const context = await buildContext(deps, doc, request.flowId, sample.input, run);
    const secretValues = collectSecretValues(context);
    const step = planStep(node);
    const base: StepTry = {
      nodeId: node.id,
      label: step.label,
      type: node.type,
      sample: sample.name,
      earlierRun: run ? { id: run.id, number: run.seq } : null,
      sideEffect: step.sideEffect,
      problems: [],
    };
    if (isTriggerType(node.type)) {
      return { tried: { ...base, problems: ['A trigger starts the flow and sends nothing itself. Select a step after it to try.'] }, secretValues };
    }
    if (step.problem !== undefined) return { tried: { ...base, problems: [step.problem] }, secretValues };
    const words = { doc, run, sampleName: sample.name, ranSteps: new Set(Object.keys(context.steps)) };
    const { rendered, ...tried } = await renderStep(deps, request.flowId, step, context, words);
    return { tried: { ...base, ...tried, problems: [...base.problems, ...tried.problems] }, secretValues, rendered };
  }

  return {
    async tryStep(request: StepTryRequest): Promise<StepTry> {
      const { tried, secretValues } = await prepareTry(request);
      // Everything shown passes the masker for the run's secrets, in every encoded form.
      return masked(tried, secretValues);
    },

    /**
     * Sends the rendered step to the stand-in a test run would use (test-mode/stand-ins.ts),
     * with the key an editor test passes, and returns its answer. Only a step that rendered
     * without a problem is sent; the stand-in records it like a test run's call.
     */
    async sendToStandIn(request: StepTryRequest): Promise<StandInTry> {
      const { tried, secretValues, rendered } = await prepareTry(request);
      if (!rendered || tried.problems.length > 0) return masked({ tried, standIn: null }, secretValues);
      const keySent = rendered.key === undefined ? undefined : receiverKeyFor({ testScope: EDITOR_TEST_SCOPE }, rendered.key);
      const delivered = await deliverToStandIn(deps.db, deps.clock.now(), {
        stepType: rendered.step.type,
        request: masked(rendered.kind.describe(rendered.prepared), secretValues) as Record<string, unknown>,
        key: keySent,
        honoursKey: rendered.kind.honoursKey(rendered.step),
        runId: null,
        nodeId: rendered.step.id,
      });
      const standIn = delivered && {
        name: delivered.standIn,
        label: STAND_IN_LABELS[delivered.standIn],
        repeated: delivered.repeated,
        answer: delivered.outcome.kind === 'succeeded' ? delivered.outcome.output : delivered.outcome,
        keySent: keySent ?? null,
      };
      return masked({ tried, standIn }, secretValues);
    },
  };
}

export type StepTryService = ReturnType<typeof stepTryService>;

async function documentFor(deps: StepTryDeps, request: StepTryRequest): Promise<FlowDocument> {
  let raw = request.document;
  if (raw === undefined) {
    const row = await deps.flows.get(request.flowId);
    if (!row) throw new NotFoundError(`There is no flow with id ${request.flowId}; it may have been deleted.`);
    raw = JSON.parse(row.draft) as unknown;
  }
  const parsed = flowDocumentSchema.safeParse(raw);
  if (!parsed.success) throw new UserError('This is not an Onceflow flow document, so its steps cannot be tried.');
  return parsed.data;
}

async function buildContext(deps: StepTryDeps, doc: FlowDocument, flowId: string, body: unknown, run: RunRow | undefined): Promise<RenderContext> {
  const now = new Date(deps.clock.now()).toISOString();
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).id : undefined;
  const trigger: RenderContext['trigger'] = {
    body,
    headers: {},
    ...(typeof id === 'string' || typeof id === 'number' ? { eventId: String(id) } : {}),
    receivedAt: now,
  };
  const steps: RenderContext['steps'] = {};
  if (run) {
    for (const checkpoint of await loadCheckpoints(deps.db, run.id)) {
      if (checkpoint.status === 'succeeded' || checkpoint.status === 'skipped') steps[checkpoint.nodeId] = { output: checkpoint.output };
    }
  }
  // The trigger's output is this sample, whatever the earlier run started with.
  for (const node of doc.nodes) if (isTriggerType(node.type)) steps[node.id] = { output: trigger };
  return {
    trigger,
    steps,
    flow: { id: flowId, name: doc.name },
    secrets: await deps.secrets(),
    run: { id: TRY_RUN_ID, attempt: 1 },
    now,
  };
}

type Words = MissingContext;

/** The step as its kind prepared it, for a stand-in to receive. */
interface Rendered {
  step: TypedStep;
  kind: StepKind;
  prepared: unknown;
  key: string | undefined;
}

type Tried = Pick<StepTry, 'request' | 'email' | 'output' | 'decision' | 'key' | 'problems'> & { rendered?: Rendered };

async function renderStep(deps: StepTryDeps, flowId: string, step: TypedStep, context: RenderContext, words: Words): Promise<Tried> {
  const render = createRenderer(context, deps.clock);
  const problems: string[] = [];
  const attempt = <T>(what: string, work: () => T): T | undefined => {
    try {
      return work();
    } catch (error) {
      problems.push(explain(what, error, words));
      return undefined;
    }
  };

  const claim = step.sideEffect
    ? attempt('The key', () => {
        // What a live run claims; an editor test run claims the same under its test scope.
        const reference = claimReference(step, { flowId, testScope: null }, (template) => render.text(template));
        checkRenderedKey(reference.key);
        return reference;
      })
    : undefined;
  const key = claim?.key;
  const kind = stepKind(step);
  if (!kind) return { problems: [`Steps of the kind "${step.type}" cannot be tried here yet.`] };
  const prepared = attempt('The step', () => kind.prepare(step, render));
  const header = step.type === 'http.request' || step.type === 'message.post' ? step.data.receiverKeyHeader || null : step.type === 'email.send' ? 'X-Onceflow-Key' : null;
  const testKey = claim && receiverKeyFor({ testScope: EDITOR_TEST_SCOPE }, claim.key);
  const tried: Tried = { problems, ...(claim && testKey ? { key: { key: claim.key, scope: claim.scope, header, testKey } } : {}) };
  if (prepared === undefined) return tried;
  tried.rendered = { step, kind: kind as StepKind, prepared, key };

  switch (step.type) {
    case 'http.request':
      return { ...tried, request: httpView(prepared as HttpAction, key) };
    case 'message.post':
      return { ...tried, request: messageView(prepared as MessageAction, key) };
    case 'email.send':
      return { ...tried, email: emailView(prepared as EmailAction, key) };
    case 'condition':
      return { ...tried, ...conditionDecision(prepared as Comparison) };
    case 'state.transition': {
      const transition = prepared as { entity: string; to: string; requires?: string; onStale: 'stop' | 'continue'; scope?: string };
      const row = await readEntity(deps.db, transition.scope ?? flowId, transition.entity);
      return { ...tried, output: kind.describe(prepared), decision: transitionDecision(step, transition, { state: row?.state ?? null }) };
    }
    default:
      return { ...tried, output: kind.describe(prepared) };
  }
}

function explain(what: string, error: unknown, words: Words): string {
  if (error instanceof MissingPathError) return `${what}: ${explainMissingForTry(error, words)}`;
  if (error instanceof TemplateSyntaxError || error instanceof UserError || error instanceof NonRetriableError) return `${what}: ${error.message}`;
  throw error;
}
