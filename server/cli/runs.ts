/** Run commands of the CLI: start, list, show, rerun, replay, resolve; `--wait` follows to the end. */
import { readableMessage } from '../../core/readable-message.ts';
import { UserError } from '../engine/errors.ts';
import type { RunStatus } from '../engine/types.ts';
import type { Client } from './client.ts';
import { readJsonFile } from './flows.ts';

const SETTLED: RunStatus[] = ['succeeded', 'failed', 'needs_review', 'cancelled'];

/** Exit codes of `--wait`: the run's outcome, distinct from 1 (the command itself failed). */
export const EXIT_CODES: Record<string, number> = { succeeded: 0, failed: 2, needs_review: 3, cancelled: 4 };

export function parseInput(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  if (text.startsWith('@')) return readJsonFile(text.slice(1));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserError(`--input is not valid JSON (${(error as Error).message}); pass JSON or @file.json.`);
  }
}

async function waitForRun(client: Client, runId: string, timeoutMs = 24 * 3600_000) {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
    const view = await client.runs.get.query({ runId });
    if (SETTLED.includes(view.run.status)) return view;
    if (Date.now() > deadline) throw new UserError(`Run ${runId} is still ${view.run.status}.`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

type RunView = Awaited<ReturnType<Client['runs']['get']['query']>>;

/** A test of the draft runs on a snapshot numbered below zero: it is the draft, not a version. */
function versionLabel(version: number | null | undefined): string {
  if (version === null || version === undefined) return 'v?';
  return version < 0 ? 'draft' : `v${version}`;
}

/** How a run was started, as the run pages say it (web/runs/run-words.ts `triggerWords`). */
function startedBy(run: RunView['run']): string {
  const words = run.replayOf ? `replay of run ${run.replayOf}`
    : run.triggerKind === 'webhook' ? `webhook event ${run.eventId ?? ''}`.trim()
    : run.triggerKind === 'schedule' ? `schedule, ${run.eventId?.replace(/^schedule:/, '') ?? 'on time'}`
    : 'started by hand';
  return run.attempt > 1 ? `${words}, rerun attempt ${run.attempt}` : words;
}

/**
 * A step's status in words. A trigger has no checkpoint of its own, so the run's view says
 * "not_reached" for it; the trigger that started the run (of the run's kind, or the flow's
 * only one) is shown as what happened: it started the run. Another trigger was not used.
 */
function stepStatusWords(step: RunView['steps'][number], view: RunView): string {
  if (!step.type.startsWith('trigger.') || step.status !== 'not_reached') return step.status;
  const triggers = view.steps.filter((candidate) => candidate.type.startsWith('trigger.'));
  const fired = triggers.length === 1 || step.type === `trigger.${view.run.triggerKind}`;
  return fired ? 'started' : 'not used';
}

function printRun(view: RunView): void {
  const { run } = view;
  const test = run.test ? (run.test.targets === 'real-services' ? ', test run against the real services' : ', test run against the stand-ins') : '';
  console.log(`Run #${run.seq} ${run.id}: ${run.status} (attempt ${run.attempt}, flow ${run.flowId} ${versionLabel(run.version)}, ${startedBy(run)}${test})`);
  if (run.error) console.log(`  ${readableMessage(run.error)}`);
  for (const step of view.steps) {
    const key = step.key ? `  key ${step.key}` : '';
    console.log(`  ${stepStatusWords(step, view).padEnd(11)} ${step.label}${key}`);
    if (step.lastError && step.status === 'failed' && step.lastError !== run.error) console.log(`${' '.repeat(14)}${readableMessage(step.lastError)}`);
  }
}

function finish(view: RunView, json: boolean): number {
  if (json) console.log(JSON.stringify(view, null, 2));
  else printRun(view);
  return EXIT_CODES[view.run.status] ?? 1;
}

export async function startRun(client: Client, flowId: string, input: unknown, options: { wait: boolean; json: boolean; test?: boolean; realServices?: boolean }): Promise<number> {
  if (options.realServices && !options.test) throw new UserError('--real-services is for test runs: add --test.');
  const { runId } = options.test
    ? await client.tests.start.mutate({ flowId, input, realServices: options.realServices === true })
    : await client.runs.start.mutate({ flowId, input });
  if (!options.wait) {
    console.log(options.json ? JSON.stringify({ runId }) : runId);
    return 0;
  }
  return finish(await waitForRun(client, runId), options.json);
}

/** `--input order.id=4417`: a path into the trigger body and the value it holds. */
export function parseInputMatch(text: string | undefined): { path: string; value: string } | undefined {
  if (text === undefined) return undefined;
  const match = /^\s*([^\s=]+)\s*=\s*(.*?)\s*$/s.exec(text);
  if (!match || match[2] === '') {
    throw new UserError(`--input is "${text}"; give a path into the input and the value it holds, such as --input order.id=4417.`);
  }
  return { path: match[1]!, value: match[2]!.replace(/^(["'])(.*)\1$/s, '$2') };
}

export interface RunSearchOptions {
  key?: string;
  input?: string;
  failedStep?: string;
}

export async function listRunsCommand(
  client: Client, flowId: string | undefined, status: string | undefined, json: boolean, tests = false, search: RunSearchOptions = {},
): Promise<number> {
  const input = parseInputMatch(search.input);
  const result = await client.runs.list.query({
    flowId, status: status as RunStatus | undefined, limit: 100, mode: tests ? 'test' : 'live',
    ...(search.key !== undefined ? { key: search.key } : {}), ...(input ? { input } : {}), ...(search.failedStep !== undefined ? { failedStep: search.failedStep } : {}),
  });
  if (json) {
    console.log(JSON.stringify(result.runs, null, 2));
    return 0;
  }
  if (result.runs.length === 0) console.log(search.key || search.input || search.failedStep ? 'No runs match.' : 'No runs.');
  for (const run of result.runs) {
    console.log(`#${run.seq}\t${run.id}\t${run.status}\t${new Date(run.createdAt).toISOString()}\t${run.triggerKind}${run.replayOf ? ` (replay of ${run.replayOf})` : ''}${run.test ? '\ttest' : ''}`);
  }
  return 0;
}

export async function showRun(client: Client, runId: string, json: boolean): Promise<number> {
  const view = await client.runs.get.query({ runId });
  const timeline: Awaited<ReturnType<Client['runs']['timeline']['query']>>['events'] = [];
  for (let afterId: number | null = 0; afterId !== null;) {
    const page: Awaited<ReturnType<Client['runs']['timeline']['query']>> = await client.runs.timeline.query({ runId, afterId, limit: 5000 });
    timeline.push(...page.events);
    afterId = page.nextAfterId;
  }
  if (json) console.log(JSON.stringify({ ...view, timeline }, null, 2));
  else {
    printRun(view);
    console.log('Timeline:');
    for (const event of timeline) console.log(`  ${new Date(event.createdAt).toISOString()}  ${event.type}${event.nodeId ? ` ${event.nodeId}` : ''}`);
  }
  return 0;
}

/** `--version latest|original`: the latest published version (the default) or the one the run used. */
export function parseVersionChoice(text: string | undefined): 'latest' | 'original' | undefined {
  if (text === undefined || text === 'latest' || text === 'original') return text;
  throw new UserError(`--version is "${text}"; use --version latest (the newest published version) or --version original (the version the run used).`);
}

/** " on v2 (was v1)" when the version moved, " on v1" otherwise. */
function versionWords(result: { version: number | null; fromVersion: number | null }): string {
  if (result.version === null) return '';
  return result.fromVersion !== null && result.fromVersion !== result.version ? ` on v${result.version} (was v${result.fromVersion})` : ` on v${result.version}`;
}

export async function rerunCommand(client: Client, runId: string, options: { wait: boolean; json: boolean; version?: string }): Promise<number> {
  const version = parseVersionChoice(options.version);
  const preview = await client.runs.rerunPreview.query({ runId, version });
  // A step that already acted acts again when its key changed: say so before it happens.
  for (const step of preview.steps) {
    if (step.keyChange) console.error(`warning: "${step.label}" acts again: its key changed from ${step.keyChange.from} to ${step.keyChange.to}.`);
  }
  const result = await client.runs.rerun.mutate({ runId, version });
  if (!options.wait) {
    console.log(options.json ? JSON.stringify(result) : `Run ${runId} queued again (attempt ${result.attempt})${versionWords(result)}.`);
    return 0;
  }
  return finish(await waitForRun(client, runId), options.json);
}

/** `--input -` reads the JSON from standard input; otherwise as `run --input` (JSON or @file). */
export async function readReplayInput(text: string | undefined, stdin: AsyncIterable<Buffer | string> = process.stdin): Promise<unknown> {
  if (text !== '-') return parseInput(text);
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return parseInput(Buffer.concat(chunks).toString('utf8'));
}

type ReplayOptions = { wait: boolean; json: boolean; version?: string; input?: string };
type ReplayResult = Awaited<ReturnType<Client['runs']['replay']['mutate']>>;

export function replayCommand(client: Client, runId: string, options: ReplayOptions): Promise<number> {
  return replayThrough(client, (request) => client.runs.replay.mutate({ runId, ...request }), options);
}

/** Shared by `replay <runId>` and `events replay <deliveryId>`: parse --version/--input, send, report or --wait. */
export async function replayThrough(
  client: Client,
  send: (request: { version?: 'latest' | 'original'; input?: unknown }) => Promise<ReplayResult>,
  options: ReplayOptions,
): Promise<number> {
  const version = parseVersionChoice(options.version);
  const input = await readReplayInput(options.input);
  const result = await send({ version, ...(input === undefined ? {} : { input }) });
  if (!options.wait) {
    console.log(options.json ? JSON.stringify(result) : `Replayed as run ${result.runId}${versionWords(result)}.`);
    return 0;
  }
  return finish(await waitForRun(client, result.runId), options.json);
}

export async function resolveCommand(client: Client, runId: string, nodeId: string, decision: string): Promise<number> {
  if (decision !== 'happened' && decision !== 'do-it' && decision !== 'skip') {
    throw new UserError('Decide with one of: happened, do-it, skip.');
  }
  await client.runs.resolve.mutate({ runId, nodeId, decision });
  console.log(`Recorded "${decision}" for step ${nodeId}; run ${runId} continues.`);
  return 0;
}
