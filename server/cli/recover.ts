/**
 * `onceflow recover`: the summed preview of a recovery and, with --yes (or a "y" typed at
 * the question), the recovery itself, followed until every run is queued;
 * `onceflow operations show <id>`: its report.
 */
import { createInterface } from 'node:readline/promises';
import { parseDuration } from '../../core/duration.ts';
import { counted, previewSentence } from '../../core/recovery-words.ts';
import { UserError } from '../engine/errors.ts';
import { RECOVERABLE_STATUSES, TRIGGER_KINDS, type RecoverableStatus, type TriggerKind } from '../engine/recovery/request.ts';
import type { Client } from './client.ts';

export interface RecoverOptions {
  flow?: string;
  from?: string;
  to?: string;
  status?: string;
  trigger?: string;
  version?: string;
  name?: string;
  replay: boolean;
  yes: boolean;
  json: boolean;
}

/** An ISO time ("2026-11-30T14:00Z", "2026-11-30") or how long ago ("6h", "2d"). */
export function parseTime(text: string | undefined, what: string, now = Date.now()): number | undefined {
  if (text === undefined) return undefined;
  if (/^\d+\s*[smhdw]$/i.test(text.trim())) return now - parseDuration(text.trim());
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new UserError(`--${what} "${text}" is not a time: give one like 2026-11-30T14:00Z, or how long ago, like 6h or 2d.`);
  return time;
}

function listOf<T extends string>(text: string | undefined, allowed: readonly T[], what: string, fallback: T[]): T[] {
  if (text === undefined) return fallback;
  const values = text.split(',').map((value) => value.trim().replace(' ', '_')).filter(Boolean);
  const wrong = values.filter((value) => !(allowed as readonly string[]).includes(value));
  if (wrong.length || values.length === 0) throw new UserError(`--${what} takes ${allowed.join(', ')} (several with commas); "${wrong.join(', ') || text}" is not one.`);
  return values as T[];
}

export function recoveryRequest(options: RecoverOptions, now = Date.now()) {
  if (options.version !== undefined && options.version !== 'latest' && options.version !== 'original') {
    throw new UserError(`--version takes latest or original, not "${options.version}".`);
  }
  const from = parseTime(options.from, 'from', now);
  const to = parseTime(options.to, 'to', now);
  return {
    ...(options.flow ? { flowId: options.flow } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    statuses: listOf<RecoverableStatus>(options.status, RECOVERABLE_STATUSES, 'status', ['failed']),
    triggerKinds: listOf<TriggerKind>(options.trigger, TRIGGER_KINDS, 'trigger', [...TRIGGER_KINDS]),
    mode: options.replay ? ('replay' as const) : ('rerun' as const),
    version: (options.version ?? 'latest') as 'latest' | 'original',
    ...(options.name ? { name: options.name } : {}),
  };
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const reader = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await reader.question(question)).trim());
  } finally {
    reader.close();
  }
}

export async function recoverCommand(client: Client, options: RecoverOptions): Promise<number> {
  const request = recoveryRequest(options);
  if (!options.yes) {
    const preview = await client.operations.preview.query(request);
    if (options.json) {
      console.log(JSON.stringify(preview));
      return 0;
    }
    console.log(`${previewSentence(preview)}.`);
    if (preview.expiredKeys.length) console.log(`Keys that expired: ${preview.expiredKeys.slice(0, 5).map((key) => `${key.key} (run #${key.seq})`).join(', ')}${preview.expired > 5 ? ', …' : ''}`);
    if (preview.runs === 0) return 0;
    if (!(await confirm(`Start the recovery of ${counted(preview.runs, 'run')}? [y/N] `))) {
      console.log('Nothing started. Run the same command with --yes to start it.');
      return 0;
    }
  }
  const started = await client.operations.recover.mutate(request);
  if (!options.json) console.log(`Recovery “${started.name}” started (${started.id}): ${counted(started.total, 'run')}.`);
  let operation = started;
  for (let pause = 100; operation.status === 'running'; pause = Math.min(pause * 2, 1000)) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    operation = await client.operations.get.query({ operationId: started.id });
  }
  if (options.json) {
    console.log(JSON.stringify(operation));
  } else {
    console.log(`${operation.status === 'finished' ? 'Finished' : operation.status === 'cancelled' ? 'Cancelled' : 'Stopped'}: ${operation.done.toLocaleString('en-US')} of ${counted(operation.total, 'run')} handled.${operation.error ? ` ${operation.error}` : ''}`);
    console.log(`The report: onceflow operations show ${operation.id}`);
  }
  return operation.status === 'failed' ? 1 : 0;
}

export async function showOperationCommand(client: Client, operationId: string, json: boolean): Promise<number> {
  const report = await client.operations.report.query({ operationId });
  if (json) {
    console.log(JSON.stringify(report));
    return 0;
  }
  const { operation, asked, totals } = report;
  const window = `${asked.from > 0 ? new Date(asked.from).toISOString() : 'the beginning'} to ${asked.to < 8e15 ? new Date(asked.to).toISOString() : 'now'}`;
  console.log(`${operation.name} (${operation.id}): ${operation.status}, ${operation.done.toLocaleString('en-US')} of ${counted(operation.total, 'run')} handled.`);
  console.log(`Asked by ${operation.createdBy} on ${new Date(operation.createdAt).toISOString()}: ${asked.mode} ${asked.statuses.join(', ').replace(/_/g, ' ')} runs${asked.flowId ? ` of flow ${asked.flowId}` : ' of every flow'} created from ${window}, on the ${asked.version} version.`);
  if (report.preview) console.log(`Preview before it started: ${previewSentence(report.preview)}.`);
  console.log(`Runs: ${totals.queued} started again, ${totals.passed} left alone, ${totals.pending} not reached; ${totals.settled} finished, ${totals.stillGoing} still going.`);
  console.log(`Effects: ${counted(totals.acted, 'step')} acted, ${counted(totals.duplicates, 'duplicate')} stopped, ${counted(totals.skipped, 'step')} skipped, ${counted(totals.uncertain, 'step')} uncertain.`);
  for (const step of report.steps) {
    console.log(`  ${step.label} (${step.nodeId}): ${step.sideEffect ? `acted ${step.acted}` : `ran ${step.ran}`}, duplicates stopped ${step.duplicates}, skipped ${step.skipped}, failed ${step.failed}, uncertain ${step.uncertain}`);
  }
  for (const step of report.uncertain) {
    console.log(`  Uncertain: ${step.label} in run #${step.seq ?? step.runId}${step.key ? ` (key ${step.key})` : ''}: ${step.resolvedBy ? `${step.decision} by ${step.resolvedBy}` : 'not resolved yet'}`);
  }
  if (report.expiredKeys.length) console.log(`Keys that had expired: ${report.expiredKeys.map((key) => `${key.key} (run #${key.seq})`).join(', ')}`);
  return 0;
}
