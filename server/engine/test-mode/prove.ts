/**
 * The checks of Prove it (DESIGN.md §11), the way the article this product is built from
 * says idempotency is tested — run in test mode against the stand-ins, on a snapshot of
 * the draft, for every side-effect step:
 *   twice       the same input twice in a row: the second run's steps are duplicates stopped;
 *   concurrent  the same input ten times at once: one effect per step;
 *   killed      a real worker process stopped hard right after a step acted, then
 *               recovery: a key-honouring receiver sees one effect; one that honours
 *               nothing is never called twice and the run asks a person;
 *   webhook     the latest real delivery (or the sample as one) sent three times;
 *   keys        what the samples say about each key (proof-key-checks.ts).
 * Each check starts its own runs under its own test scope (`<proof id>:<check>`), so no
 * check, earlier proof or editor test can make another look like a duplicate.
 */
import type { Logger } from 'pino';
import type { Db } from '../../store/db.ts';
import { releaseProbedRun } from '../../store/probe-runs.ts';
import { listRuns } from '../../store/run-list.ts';
import type { FlowVersionRow } from '../../store/types.ts';
import { errorMessage } from '../errors.ts';
import { isSideEffectStep, type FlowDocument, type FlowNode } from '../flow/document.ts';
import type { RunService } from '../run-service.ts';
import { stepKind } from '../steps/registry.ts';
import type { Clock, RunRow } from '../types.ts';
import { findSample, flowSamples, type NamedSample } from '../flow/samples.ts';
import { checkKeys, labelOf } from './proof-key-checks.ts';
import { observeSteps, standInCounts, waitForRuns, type StepObservation } from './proof-observations.ts';
import { PROOF_CHECKS, PROOF_CHECK_TITLES, type ProofCheckId, type ProofCheckResult, type ProofReport, type ProofStepResult } from './proof-report.ts';
import type { ProbeLauncher } from './probe-launcher.ts';
import { standInFor } from './stand-ins.ts';

export interface ProverDeps {
  db: Db;
  runs: RunService;
  clock: Clock;
  log: Logger;
  snapshot: { version: FlowVersionRow; document: FlowDocument };
  /** Starts the probe process of the `killed` check; absent, that check says it could not run. */
  probe?: ProbeLauncher;
  /** Wakes this process's worker once a probed run is released. */
  nudge(): void;
  signal?: AbortSignal;
}

const CONCURRENT_RUNS = 10;
const WEBHOOK_SENDS = 3;
const RUN_LIMIT_MS = 30_000;

interface Target {
  node: FlowNode;
  label: string;
  /** A stand-in receives it (network steps), so effects are counted there. */
  counted: boolean;
  honoursKey: boolean;
}

export async function runProofChecks(
  deps: ProverDeps,
  initial: ProofReport,
  save: (report: ProofReport) => Promise<void>,
  sampleName?: string,
): Promise<ProofReport> {
  const { document, version } = deps.snapshot;
  const samples = flowSamples(document);
  const sample = findSample(document, sampleName);
  let report: ProofReport = { ...initial, sample: sample.name };
  const targets = document.nodes.filter(isSideEffectStep).map((node): Target => {
    const typed = node as FlowNode & { data: Record<string, unknown> };
    const kind = stepKind({ ...typed, sideEffect: true } as never);
    const honoursKey = kind ? kind.honoursKey(typed as never) : false;
    return { node, label: labelOf(node), counted: standInFor(node.type as never, honoursKey) !== null, honoursKey };
  });

  const start = async (check: string, input: unknown, options: { forProbe?: boolean; delivery?: boolean } = {}) => {
    const started = await deps.runs.start({
      flowId: version.flowId, versionId: version.id, input, by: 'proof', forProbe: options.forProbe,
      test: { scope: `${report.id}:${check}`, targets: 'stand-ins' },
    });
    return started.runId;
  };
  const settle = (runIds: string[]) => waitForRuns(deps.db, runIds, RUN_LIMIT_MS, deps.signal);

  type CheckWork = () => Promise<Omit<ProofCheckResult, 'check' | 'title'>>;
  const carryOut = async (id: ProofCheckId, work: CheckWork): Promise<ProofCheckResult> => {
    try {
      return { check: id, title: PROOF_CHECK_TITLES[id], ...(await work()) };
    } catch (error) {
      deps.signal?.throwIfAborted();
      return { check: id, title: PROOF_CHECK_TITLES[id], passed: false, summary: `This check could not be carried out: ${errorMessage(error)}`, steps: [], runIds: [] };
    }
  };
  const done = async (result: ProofCheckResult) => {
    const checks = [...report.checks, result].sort((a, b) => PROOF_CHECKS.indexOf(a.check) - PROOF_CHECKS.indexOf(b.check));
    report = { ...report, checks, progress: { ...report.progress, done: report.progress.done + 1 } };
    await save(report);
  };
  const record = async (id: ProofCheckId, work: CheckWork) => {
    report = { ...report, progress: { ...report.progress, current: PROOF_CHECK_TITLES[id] } };
    await save(report);
    await done(await carryOut(id, work));
  };

  // The probes take the longest (each is a process of its own): they start first and work
  // beside the other checks, each on runs of its own.
  const killed = carryOut('killed', () => killedCheck(deps, targets, sample, start, settle));

  let firstOutputs: Record<string, unknown> = {};

  await record('twice', async () => {
    const first = await start('twice', sample.input);
    const [firstRun] = await settle([first]);
    const second = await start('twice', sample.input);
    const [secondRun] = await settle([second]);
    const [a, b, counts] = await Promise.all([observeSteps(deps.db, first), observeSteps(deps.db, second), standInCounts(deps.db, [first, second])]);
    firstOutputs = await stepOutputs(deps, first);
    const steps = targets.map((target) => judgeTwice(target, a.get(target.node.id), b.get(target.node.id), effectsOf(target, counts, [a, b])));
    return finish(steps, [first, second], runTrouble(firstRun!) ?? runTrouble(secondRun!), 'Run twice with the same input, every step that changes something acted once; the second run’s were stopped as duplicates.');
  });

  await record('concurrent', async () => {
    const ids = await Promise.all(Array.from({ length: CONCURRENT_RUNS }, () => start('concurrent', sample.input)));
    const runs = await settle(ids);
    const [observed, counts] = await Promise.all([Promise.all(ids.map((id) => observeSteps(deps.db, id))), standInCounts(deps.db, ids)]);
    const steps = targets.map((target): ProofStepResult => {
      if (!observed.some((run) => run.get(target.node.id)?.reached)) return notReached(target);
      const effects = effectsOf(target, counts, observed);
      const duplicates = observed.reduce((sum, run) => sum + (run.get(target.node.id)?.duplicateCount ?? 0), 0);
      const expected = onceEach(observed, target);
      return effects === expected
        ? { nodeId: target.node.id, label: target.label, passed: true, sentence: `“${target.label}” acted ${timesWords(expected)} in ${CONCURRENT_RUNS} runs started together; ${duplicates} ${duplicates === 1 ? 'was' : 'were'} stopped as duplicates.` }
        : { nodeId: target.node.id, label: target.label, passed: false, sentence: `“${target.label}” acted ${effects} times in ${CONCURRENT_RUNS} runs started together with the same input. ${keyAdvice(observed, target)}` };
    });
    return finish(steps, ids, runs.map(runTrouble).find((trouble) => trouble !== null) ?? null, `Started ${CONCURRENT_RUNS} times at once with the same input, every step that changes something acted once.`);
  });

  await record('webhook', async () => {
    const delivery = await latestDelivery(deps.db, version.flowId);
    const input = delivery?.input ?? sample.input;
    const ids: string[] = [];
    for (let send = 0; send < WEBHOOK_SENDS; send++) {
      ids.push(await start('webhook', input));
      await settle([ids.at(-1)!]);
    }
    const [observed, counts] = await Promise.all([Promise.all(ids.map((id) => observeSteps(deps.db, id))), standInCounts(deps.db, ids)]);
    const source = delivery ? `the latest delivery (event ${delivery.eventId ?? 'without an id'})` : `the sample “${sample.name}” (no delivery has arrived yet)`;
    const steps = targets.map((target): ProofStepResult => {
      if (!observed.some((run) => run.get(target.node.id)?.reached)) return notReached(target);
      const effects = effectsOf(target, counts, observed);
      const duplicates = observed.reduce((sum, run) => sum + (run.get(target.node.id)?.duplicateCount ?? 0), 0);
      const expected = onceEach(observed, target);
      return effects === expected
        ? { nodeId: target.node.id, label: target.label, passed: true, sentence: `“${target.label}” acted ${timesWords(expected)}; the ${duplicates} repeats were counted as duplicates.` }
        : { nodeId: target.node.id, label: target.label, passed: false, sentence: `“${target.label}” acted ${effects} times for ${source} sent ${WEBHOOK_SENDS} times. ${keyAdvice(observed, target)}` };
    });
    return finish(steps, ids, null, `${capitalize(source)}, sent ${WEBHOOK_SENDS} times, acted once.`);
  });

  report = { ...report, progress: { ...report.progress, current: PROOF_CHECK_TITLES.killed } };
  await done(await killed);

  await record('keys', async () => {
    const steps = checkKeys(document, samples, firstOutputs);
    const passed = steps.every((step) => step.passed);
    return {
      passed,
      summary: passed
        ? `Every key is built from the work and tells the ${samples.length} ${samples.length === 1 ? 'sample' : 'samples'} apart.`
        : `${steps.filter((step) => !step.passed).length} of the flow’s steps have a key problem.`,
      steps,
      runIds: [],
    };
  });
  return report;
}

type StartRun = (check: string, input: unknown, options?: { forProbe?: boolean }) => Promise<string>;

/** Per side-effect step, a run its own probe process takes and is stopped in, right after the step acted. */
async function killedCheck(deps: ProverDeps, targets: Target[], sample: NamedSample, start: StartRun, settle: (runIds: string[]) => Promise<RunRow[]>) {
  if (!deps.probe) throw new Error('this server cannot start a probe process');
  const probe = deps.probe;
  const results = await Promise.all(targets.map(async (target) => {
    const runId = await start(`killed:${target.node.id}`, sample.input, { forProbe: true });
    const outcome = await probe(runId, target.node.id);
    if (outcome.stoppedHard) {
      await releaseProbedRun(deps.db, runId);
      deps.nudge();
    }
    const [run] = await settle([runId]);
    const [observed, counts] = await Promise.all([observeSteps(deps.db, runId), standInCounts(deps.db, [runId])]);
    const step = observed.get(target.node.id);
    if (!outcome.stoppedHard && !step?.reached) return { runId, step: notReached(target) };
    return { runId, step: judgeKilled(target, run!, step, effectsOf(target, counts, [observed]), outcome.stoppedHard, outcome.output) };
  }));
  return finish(results.map((result) => result.step), results.map((result) => result.runId), null,
    'Stopped hard right after each step acted and before its record, every step still acted once after recovery.');
}

function finish(steps: ProofStepResult[], runIds: string[], trouble: string | null, passedSummary: string) {
  const failed = steps.filter((step) => !step.passed).length;
  const passed = failed === 0 && trouble === null;
  const summary = passed ? passedSummary : [trouble, failed > 0 ? `${failed} ${failed === 1 ? 'step' : 'steps'} did not hold.` : null].filter(Boolean).join(' ');
  return { passed, summary, steps, runIds };
}

/** A run that did not finish as it should says why (a failed step is the flow's problem, not the check's). */
function runTrouble(run: RunRow): string | null {
  if (run.status === 'failed') return `A test run failed: ${run.error ?? 'no reason was recorded'}.`;
  return null;
}

function effectsOf(target: Target, counts: Map<string, number>, observed: Map<string, StepObservation>[]): number {
  if (target.counted) return counts.get(target.node.id) ?? 0;
  return observed.reduce((sum, run) => sum + (run.get(target.node.id)?.actedCount ?? 0), 0);
}

/** Once for a step, once per item inside a For each: as often as one run reached it. */
function onceEach(observed: Map<string, StepObservation>[], target: Target): number {
  return Math.max(1, ...observed.map((run) => run.get(target.node.id)?.instances ?? 0));
}

const timesWords = (times: number) => (times === 1 ? 'once' : `once for each of its ${times} items`);

function notReached(target: Target): ProofStepResult {
  return { nodeId: target.node.id, label: target.label, passed: true, sentence: `“${target.label}” was not reached with this sample (it sits on a branch the sample does not take), so this check could not try it; add a sample that reaches it.` };
}

function judgeTwice(target: Target, first: StepObservation | undefined, second: StepObservation | undefined, effects: number): ProofStepResult {
  const base = { nodeId: target.node.id, label: target.label };
  if (!first?.reached) return notReached(target);
  if (first.failure) return { ...base, passed: false, sentence: `“${target.label}” failed: ${first.failure}` };
  const expected = Math.max(1, first.instances);
  if (effects === expected && second?.duplicate && second.actedCount === 0) {
    return { ...base, passed: true, sentence: `“${target.label}” acted ${timesWords(expected)}; the second run’s ${expected === 1 ? 'was' : 'were'} stopped as ${expected === 1 ? 'a duplicate' : 'duplicates'} (key ${first.key ?? '—'}${expected > 1 ? ', …' : ''}).` };
  }
  if (effects === expected && !second?.reached) {
    return { ...base, passed: true, sentence: `“${target.label}” acted once; the second run stopped before reaching it (an earlier step held it back, e.g. a record already in that state).` };
  }
  const keys = [first.key, second?.key].filter(Boolean);
  const changed = keys.length === 2 && keys[0] !== keys[1] ? ` Its key changed from ${keys[0]} to ${keys[1]}: it comes from the attempt (a time, a run id or a random value), not from the work.` : '';
  return { ...base, passed: false, sentence: `“${target.label}” acted ${effects} times for the same input run twice.${changed}` };
}

function judgeKilled(target: Target, run: RunRow, observed: StepObservation | undefined, effects: number, stoppedHard: boolean, output: string): ProofStepResult {
  const base = { nodeId: target.node.id, label: target.label };
  if (!stoppedHard) {
    return { ...base, passed: false, sentence: `The worker process meant to stop after “${target.label}” acted did not get there${output ? `: ${output.split('\n').at(-1)}` : ''}.` };
  }
  const onUncertain = (target.node.data as { onUncertain?: unknown }).onUncertain;
  if (!target.honoursKey && onUncertain === 'retry') {
    return { ...base, passed: false, sentence: `“${target.label}” is set to try again when the outcome is unknown, but its receiver does not honour keys: a timeout after it acted would make it act twice. Set it to ask a person, or pass a key the receiver honours.` };
  }
  if (target.honoursKey) {
    return effects === Math.max(1, observed?.instances ?? 1) && run.status === 'succeeded'
      ? { ...base, passed: true, sentence: `“${target.label}” acted once: after the stop, Onceflow tried again with the same key and the receiver, which honours keys, answered from its record.` }
      : { ...base, passed: false, sentence: `“${target.label}” took effect ${effects} times after a stop between the action and its record (the run ended ${run.status.replace('_', ' ')}). Check that the receiver really honours the key in ${String((target.node.data as { receiverKeyHeader?: unknown }).receiverKeyHeader ?? 'its header')}.` };
  }
  // Each item (or the one step) reached its receiver at most once; the stopped one waits for a person.
  if (effects <= Math.max(1, observed?.instances ?? 1) && run.status === 'needs_review' && observed?.uncertain) {
    return {
      ...base,
      passed: true,
      sentence: `“${target.label}” was not called twice, and the run asks a person to review it. That is the honest answer: its receiver does not honour keys, so after a stop between the call and its record nobody can know whether it took effect. *Try again* would risk doing it a second time; look at the receiver first, then choose *It happened* or *Try again*.`,
    };
  }
  return { ...base, passed: false, sentence: `“${target.label}” took effect ${effects} times after a stop between the action and its record (the run ended ${run.status.replace('_', ' ')}).` };
}

function keyAdvice(observed: Map<string, StepObservation>[], target: Target): string {
  const keys = [...new Set(observed.map((run) => run.get(target.node.id)?.key).filter((key): key is string => Boolean(key)))];
  return keys.length > 1
    ? `Its key was different in each run (${keys.slice(0, 3).join(', ')}…): build it from the work, e.g. the order id and the action.`
    : 'Its key did not stop the repeats.';
}

async function stepOutputs(deps: ProverDeps, runId: string): Promise<Record<string, unknown>> {
  const view = await deps.runs.view(runId);
  return Object.fromEntries(view.steps.filter((step) => step.output !== null && step.output !== undefined).map((step) => [step.nodeId, step.output]));
}

/** The body of the newest live webhook run of the flow: the delivery that really arrived. */
async function latestDelivery(db: Db, flowId: string): Promise<{ input: unknown; eventId: string | null } | null> {
  const recent = await listRuns(db, { flowId, mode: 'live', limit: 50 });
  const delivered = recent.find((run) => run.triggerKind === 'webhook');
  if (!delivered) return null;
  const input = delivered.input as { body?: unknown } | null;
  return { input: input && typeof input === 'object' && 'body' in input ? input.body : delivered.input, eventId: delivered.eventId };
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
