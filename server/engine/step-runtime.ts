/**
 * What a step needs while it executes: the run's journal, a renderer over the run's data,
 * the process's services, and the engine's settings (leases, retry pace).
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../store/db.ts';
import type { CrashPoints } from './crash-points.ts';
import type { EngineMetrics } from './engine-metrics.ts';
import type { TypedStep } from './flow/planned-step.ts';
import { createMasker, type Masker } from './secrets/masker.ts';
import { renderDeep, renderTemplate, renderValue, type RenderContext } from '../../core/templates/render.ts';
import type { RunEnded } from './run-endings.ts';
import type { StepJournal } from './run-journal.ts';
import type { Renderer, StepServices } from './steps/types.ts';
import type { Clock } from './types.ts';

export interface EngineConfig {
  /** How long a run lease lasts without a heartbeat (default: 30 s). */
  leaseMs: number;
  /** How long a claim may stay in progress without its holder's heartbeat (default: 30 s). */
  claimLeaseMs: number;
  /** Longest a step waits in memory for a claim held elsewhere before parking the run (default: 5 s). */
  inlineClaimWaitMs: number;
  /** First retry delay; doubles for exponential backoff (default: 200 ms). */
  retryBaseMs: number;
  /** Longest single retry delay (default: 5 s). */
  retryMaxDelayMs: number;
  /** How long a key is kept when its step names no keyTtl (ONCEFLOW_KEY_TTL, default: 30 days). */
  keyTtlMs: number;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  leaseMs: 30_000,
  claimLeaseMs: 30_000,
  inlineClaimWaitMs: 5_000,
  retryBaseMs: 200,
  retryMaxDelayMs: 5_000,
  keyTtlMs: 30 * 86_400_000,
};

/** Claims a worker is acting under, so its heartbeat keeps their leases alive. */
export interface ClaimTracker {
  track(claim: { scope: string; key: string; fence: number }): () => void;
}

export interface EngineDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  config: EngineConfig;
  crash: CrashPoints;
  services: StepServices;
  claims: ClaimTracker;
  /** What the engine counts for /metrics (none when not given). */
  metrics?: EngineMetrics;
}

export interface StepExecution {
  deps: EngineDeps;
  journal: StepJournal;
  flowId: string;
  node: TypedStep;
  render: Renderer;
  signal: AbortSignal;
  secretValues: string[];
}

export type StepResult =
  /** The run goes on; `stop` ends this branch of the flow. */
  | { kind: 'done'; output: unknown; stop?: boolean }
  | RunEnded;

export function createRenderer(context: RenderContext, clock: Clock): Renderer {
  return {
    text: (template) => renderTemplate(template, context),
    value: (template) => renderValue(template, context),
    deep: (value) => renderDeep(value, context),
    now: () => clock.now(),
  };
}

/** JSON with sorted keys, so equal requests always hash the same. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${stableStringify(item)}`).join(',')}}`;
}

export function fingerprint(description: unknown): string {
  return createHash('sha256').update(stableStringify(description)).digest('hex').slice(0, 32);
}

/**
 * The run's secrets masked in a value, by the same rules as the database's masker (every
 * encoded form); the fingerprint is taken of this, so it never depends on a value.
 */
export function masked<T>(value: T, secretValues: string[]): T {
  return secretValues.length ? maskerFor(secretValues).deep(value) : value;
}

// Runs of a process nearly always share one set of secrets: its masker is built once.
let lastMasker: { values: readonly string[]; masker: Masker } | undefined;
function maskerFor(values: readonly string[]): Masker {
  const last = lastMasker;
  if (last && last.values.length === values.length && last.values.every((value, index) => value === values[index])) return last.masker;
  const masker = createMasker(values);
  lastMasker = { values: [...values], masker };
  return masker;
}
