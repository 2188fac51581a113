/**
 * The interface every step kind implements. A kind renders its step (settings already
 * parsed by type, flow/planned-step.ts) into a concrete action and performs it, reporting
 * an outcome; the step protocol (protocol.ts) decides whether a side effect may be
 * performed at all, and outcomes.ts what follows each outcome. Adding a kind is adding a
 * file and a line in registry.ts.
 */
import type { NodeType } from '../flow/node-types.ts';
import type { TypedStep } from '../flow/planned-step.ts';
import type { NetworkPolicy } from '../network-policy.ts';
import type { CheckpointRow } from '../types.ts';
import type { EntityTransitionRequest, EntityTransitionResult } from '../../store/entities.ts';

/** Strict rendering over the run's context; a missing path throws MissingPathError. */
export interface Renderer {
  text(template: string): string;
  value(template: string): unknown;
  deep(value: unknown): unknown;
  now(): number;
}

export type StepOutcome =
  /** Done; `stop` ends this branch of the flow here (the step is recorded as skipped). */
  | { kind: 'succeeded'; output: unknown; stop?: boolean; skipReason?: string }
  /** Certainly not done (nothing reached the receiver, or it said "later"): safe to retry. */
  | { kind: 'not_done'; message: string; retryAfterMs?: number; response?: unknown }
  /** Definitively refused; retrying the same request cannot help. */
  | { kind: 'failed'; message: string; response?: unknown }
  /** May or may not have happened (timeout after sending, reset, 5xx). */
  | { kind: 'ambiguous'; message: string; response?: unknown }
  /** Park the run until `until` (a durable delay or a prerequisite). */
  | { kind: 'wait'; until: number; output: unknown; message: string };

export interface StepIO {
  /** The claimed idempotency key (side-effect steps only). */
  key?: string;
  /** This step's checkpoint from an earlier attempt that did not settle it (e.g. a delay). */
  previous?: CheckpointRow;
  runId: string;
  flowId: string;
  nodeId: string;
  now(): number;
  signal: AbortSignal;
  services: StepServices;
}

/** What kinds may use from the outside world, provided by the process. */
export interface StepServices {
  /**
   * Where network steps may connect (network-policy.ts): its agents and `resolveHost`
   * check the address each connection is made to.
   */
  network: NetworkPolicy;
  /**
   * Hides secret values in a text a step is about to shorten (a receiver's answer, a mail
   * server's reply): once cut, a secret is no longer recognisable where texts are stored
   * (default: nothing is hidden).
   */
  mask?(text: string): string;
  /** A test run does not wait out its delays: it notes the wait and goes on (test-mode/perform.ts). */
  skipDelays?: boolean;
  /** Applies an entity state transition (state.transition steps). */
  transitionEntity?(request: EntityTransitionRequest): Promise<EntityTransitionResult>;
}

// A transition is the store's compare-and-set; its request and result are the store's words.
export type { EntityTransitionRequest, EntityTransitionResult } from '../../store/entities.ts';

export interface StepKind<Type extends NodeType = NodeType, Prepared = unknown> {
  readonly type: Type;
  prepare(step: TypedStep<Type>, render: Renderer): Prepared;
  /** What identifies the action: fingerprinted, and shown when two inputs share a key. */
  describe(prepared: Prepared): Record<string, unknown>;
  execute(prepared: Prepared, io: StepIO): Promise<StepOutcome>;
  /** True when the receiver honours the key we pass, so a repeat cannot apply twice. */
  honoursKey(step: TypedStep<Type>): boolean;
  /**
   * For kinds with several exits (a condition's `true` / `false`): the exit an output
   * took, read the same way from a fresh output and a checkpointed one. Kinds with one
   * exit leave it out, and every edge leaving them is followed.
   */
  branchOf?(output: unknown): string;
}
