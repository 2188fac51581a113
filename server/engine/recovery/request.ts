/**
 * What a recovery asks for: which runs (a flow or all, a window on their creation time,
 * statuses, trigger kinds) and what to do with each (rerun or replay, on the latest or the
 * original version), under a name people recognise later ("Mail server outage 30 Nov").
 */
import { UserError } from '../errors.ts';
import type { RunStatus } from '../types.ts';
import type { VersionChoice } from '../version-choice.ts';

export const RECOVERABLE_STATUSES = ['failed', 'needs_review', 'cancelled', 'succeeded'] as const satisfies readonly RunStatus[];
export type RecoverableStatus = (typeof RECOVERABLE_STATUSES)[number];
export const TRIGGER_KINDS = ['manual', 'webhook', 'schedule'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];
export const RECOVERY_MODES = ['rerun', 'replay'] as const;
export type RecoveryMode = (typeof RECOVERY_MODES)[number];

/** Most runs one operation takes: beyond that, split the window. */
export const MAX_RECOVERY_RUNS = 50_000;

export interface RecoveryRequest {
  /** One flow, or every flow when absent. */
  flowId?: string;
  /** Run creation time, from (inclusive) and to (exclusive), in ms; absent means open. */
  from?: number;
  to?: number;
  statuses: RecoverableStatus[];
  triggerKinds: TriggerKind[];
  mode: RecoveryMode;
  version: VersionChoice;
  name?: string;
}

/** The request as stored: every choice spelled out, the window closed. */
export interface AskedRecovery extends Required<Omit<RecoveryRequest, 'flowId'>> {
  flowId: string | null;
}

const FAR_FUTURE = 8_640_000_000_000_000;

export function settleRequest(request: RecoveryRequest, now: number): AskedRecovery {
  if (request.statuses.length === 0) throw new UserError('Choose at least one status of runs to recover.');
  if (request.triggerKinds.length === 0) throw new UserError('Choose at least one kind of trigger (manual, webhook or schedule).');
  const from = request.from ?? 0;
  const to = request.to ?? FAR_FUTURE;
  if (from >= to) throw new UserError('The time window ends before it starts: pick a "to" time after the "from" time.');
  if (request.mode === 'rerun' && request.statuses.includes('succeeded') && request.version === 'original') {
    throw new UserError('A succeeded run rerun on the version it ran has nothing left to do: replay it, or rerun it on the latest version.');
  }
  const name = request.name?.trim() || defaultName(request, now);
  return {
    flowId: request.flowId ?? null, from, to, statuses: [...new Set(request.statuses)], triggerKinds: [...new Set(request.triggerKinds)],
    mode: request.mode, version: request.version, name,
  };
}

/** "Rerun of failed runs, 1 Dec 2026 05:30 UTC" when the operator names none. */
function defaultName(request: RecoveryRequest, now: number): string {
  const when = new Date(now).toISOString().replace('T', ' ').slice(0, 16);
  const what = request.statuses.map((status) => status.replace('_', ' ')).join(', ');
  return `${request.mode === 'rerun' ? 'Rerun' : 'Replay'} of ${what} runs, ${when} UTC`;
}

/** The statuses a run must still have when its batch comes, to be included. */
export function stillMatches(asked: AskedRecovery, status: RunStatus): boolean {
  return (asked.statuses as readonly RunStatus[]).includes(status);
}
