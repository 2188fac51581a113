/**
 * The step protocol for side-effect steps (DESIGN.md §5; see ARCHITECTURE.md for the
 * sequence). In short: render the key, claim it with one insert, act only when won, and
 * record the claim's outcome, the checkpoint and the timeline in one fenced transaction.
 * A lost claim is answered from what the winner recorded.
 */
import { errorMessage, NonRetriableError, RetryAfterError, UserError } from './errors.ts';
import { parseDuration } from './flow/duration.ts';
import { readClaim, takeOverClaim, tryClaim } from '../store/claims.ts';
import { skipRecordOf, uncertainClaimMessage } from './review-decisions.ts';
import { checkRenderedKey } from './templates/lint-key.ts';
import { fingerprint, masked, retryDelay, retryPolicy, type StepExecution } from './step-runtime.ts';
import type { StepKind, StepOutcome } from './steps/types.ts';
import type { ClaimRow } from './types.ts';

export type StepResult =
  | { kind: 'done'; output: unknown; branch?: 'true' | 'false'; stop?: boolean }
  /** The run was parked or settled and the journal flushed; the executor stops here. */
  | { kind: 'ended' };

const DEFAULT_KEY_TTL = '30d';

interface Claimed {
  scope: string;
  key: string;
  fence: number;
}

/** Fails the step and the run, writing the claim's outcome when there is one. */
export async function failStep(step: StepExecution, message: string, claim?: Claimed, extra: Record<string, unknown> = {}): Promise<StepResult> {
  const { journal, node } = step;
  journal.event('step.failed', node.id, { message, ...extra });
  journal.event('run.failed', null, { message, nodeId: node.id });
  await journal.flush({
    claim: claim ? { ...claim, status: 'failed', error: message } : undefined,
    ending: { status: 'failed', error: message },
  });
  return { kind: 'ended' };
}

async function markUncertain(step: StepExecution, claim: Claimed, message: string, extra: Record<string, unknown> = {}): Promise<StepResult> {
  const { journal, node } = step;
  journal.checkpoint(node.id, 'uncertain', null, claim);
  journal.event('step.uncertain', node.id, { key: claim.key, scope: claim.scope, message, ...extra });
  journal.event('run.needs_review', null, { nodeId: node.id, message });
  await journal.flush({ claim: { ...claim, status: 'uncertain', error: message }, ending: { status: 'needs_review', error: message } });
  return { kind: 'ended' };
}

/** Performs the action under a won claim, retrying per the step's policy. */
async function act(step: StepExecution, kind: StepKind<unknown>, prepared: unknown, claim: Claimed, how: 'won' | 'recovered' | 'retaken'): Promise<StepResult> {
  const { deps, journal, node } = step;
  const policy = retryPolicy(node, deps.config);
  const honours = kind.honoursKey(node);
  const onUncertain = node.data.onUncertain === 'retry' ? 'retry' : 'review';
  const untrack = deps.claims.track(claim);
  try {
    deps.crash.check('after-claim', node.id);
    for (let attempt = 1; ; attempt++) {
      const outcome: StepOutcome = await kind.execute(prepared, {
        key: claim.key, runId: journal.run.id, flowId: step.flowId, nodeId: node.id, now: deps.clock.now, signal: step.signal, services: deps.services,
      }).catch((error: unknown) => outcomeOfThrown(error, step.signal));
      deps.crash.check('after-act', node.id);
      const retriesLeft = attempt <= policy.max;
      const retry = async (message: string, hintMs?: number) => {
        const delayMs = retryDelay(policy, attempt, deps.config, hintMs);
        journal.event('step.retry_scheduled', node.id, { message, retry: attempt, delayMs, key: claim.key });
        await deps.clock.sleep(delayMs);
      };
      switch (outcome.kind) {
        case 'succeeded': {
          const output = masked(outcome.output, step.secretValues);
          journal.checkpoint(node.id, 'succeeded', output, claim);
          journal.event('step.succeeded', node.id, { key: claim.key, scope: claim.scope, output, via: how });
          await journal.flush({ claim: { ...claim, status: 'succeeded', output } });
          deps.crash.check('after-checkpoint', node.id);
          return { kind: 'done', output };
        }
        case 'not_done':
          if (retriesLeft) { await retry(outcome.message, outcome.retryAfterMs); continue; }
          return failStep(step, outcome.message, claim, { response: outcome.response });
        case 'failed':
          return failStep(step, outcome.message, claim, { response: outcome.response });
        case 'ambiguous':
          // Safe to repeat only when the receiver deduplicates by our key, or the person
          // chose "try again" for this step (accepting at-least-once).
          if ((honours || onUncertain === 'retry') && retriesLeft) { await retry(outcome.message); continue; }
          if (honours || onUncertain === 'retry') return failStep(step, outcome.message, claim, { response: outcome.response });
          return markUncertain(step, claim, outcome.message, { response: outcome.response });
        case 'wait':
          return failStep(step, 'A step with side effects cannot wait.', claim);
      }
    }
  } finally {
    untrack();
  }
}

/**
 * A step kind reports what happened as an outcome; a thrown error still must settle the
 * claim at once, never leave it in progress for a lease. The error vocabulary says how
 * much is known: a UserError or NonRetriableError is raised over the input or the
 * server's policy before anything is sent (failed: the key may act again later); a
 * RetryAfterError means try later (not done). Anything else may have happened after the
 * request left: ambiguous, so a receiver that honours the key is asked again and any
 * other stops for review. An interrupted worker (shutdown, lost lease) leaves the claim
 * to its lease, as a crash would.
 */
function outcomeOfThrown(error: unknown, signal: AbortSignal): StepOutcome {
  if (signal.aborted) throw error;
  if (error instanceof UserError || error instanceof NonRetriableError) {
    return { kind: 'failed', message: error.message };
  }
  if (error instanceof RetryAfterError) return { kind: 'not_done', message: error.message, retryAfterMs: error.retryAfterMs };
  return { kind: 'ambiguous', message: `The step stopped with an unexpected error (${errorMessage(error)}); it is not known whether the receiver acted.` };
}

export async function runSideEffectStep(step: StepExecution, kind: StepKind<unknown>, prepared: unknown): Promise<StepResult> {
  const { deps, journal, node, render } = step;
  const template = typeof node.data.key === 'string' ? node.data.key : '';
  const key = render.text(template);
  checkRenderedKey(key);
  const scope = typeof node.data.keyScope === 'string' && node.data.keyScope ? render.text(node.data.keyScope) : `${step.flowId}:${node.id}`;
  const ttlMs = parseDuration(typeof node.data.keyTtl === 'string' && node.data.keyTtl ? node.data.keyTtl : DEFAULT_KEY_TTL);
  const request = masked(kind.describe(prepared), step.secretValues);
  const hash = fingerprint(request);
  const runId = journal.run.id;
  let announcedWait = false;
  let waitedMs = 0;

  for (;;) {
    const now = deps.clock.now();
    const leaseUntil = now + deps.config.claimLeaseMs;
    const fence = await deps.db.durably((sql) => tryClaim(sql, {
      scope, key, fingerprint: hash, request, runId, nodeId: node.id, leaseUntil, expiresAt: now + ttlMs, now,
    }));
    if (fence !== undefined) return act(step, kind, prepared, { scope, key, fence }, 'won');

    const claim = await readClaim(deps.db, scope, key);
    if (!claim) continue;
    const owner = { runId, nodeId: node.id, fingerprint: hash, request, leaseUntil, now };
    switch (claim.status) {
      case 'succeeded':
        return answerFromRecord(step, claim, hash, request);
      case 'failed': {
        const retaken = await deps.db.durably((sql) => takeOverClaim(sql, claim, owner));
        if (retaken !== undefined) return act(step, kind, prepared, { scope, key, fence: retaken }, 'retaken');
        continue;
      }
      case 'uncertain': {
        const message = uncertainClaimMessage(claim, runId);
        const skipped = skipRecordOf(claim.output);
        journal.checkpoint(node.id, 'uncertain', null, { scope, key });
        journal.event('step.uncertain', node.id, { key, scope, message, runId: claim.ownerRunId, ...(skipped ? { skippedBy: skipped } : {}) });
        journal.event('run.needs_review', null, { nodeId: node.id, message });
        await journal.flush({ ending: { status: 'needs_review', error: message } });
        return { kind: 'ended' };
      }
      case 'in_progress': {
        if (claim.leaseUntil < now) {
          // The holder died between its claim and its record.
          const taken = await deps.db.durably((sql) => takeOverClaim(sql, claim, owner));
          if (taken === undefined) continue;
          const claimed = { scope, key, fence: taken };
          if (kind.honoursKey(node)) {
            journal.event('step.recovered', node.id, { key, scope, previousRunId: claim.ownerRunId, message: 'The earlier attempt stopped before recording its outcome; trying again with the same key, which the receiver honours.' });
            return act(step, kind, prepared, claimed, 'recovered');
          }
          return markUncertain(step, claimed, 'An earlier attempt stopped after claiming this step and before recording what happened; the receiver does not honour keys, so it will not be repeated on a guess.', { previousRunId: claim.ownerRunId });
        }
        if (!announcedWait) {
          announcedWait = true;
          journal.event('step.waiting_for_claim', node.id, { key, scope, runId: claim.ownerRunId });
        }
        if (waitedMs >= deps.config.inlineClaimWaitMs) {
          await journal.flush({ ending: { status: 'waiting', wakeAt: Math.min(claim.leaseUntil, now + 1000) } });
          return { kind: 'ended' };
        }
        const pause = Math.min(20 * 2 ** Math.min(6, Math.floor(waitedMs / 100)), 250);
        waitedMs += pause;
        await deps.clock.sleep(pause);
        continue;
      }
    }
  }
}

/** Lost the claim to a finished step: reuse its result, or refuse when the inputs differ. */
async function answerFromRecord(step: StepExecution, claim: ClaimRow, hash: string, request: unknown): Promise<StepResult> {
  const { journal, node } = step;
  const ref = { scope: claim.scope, key: claim.key };
  if (claim.fingerprint === hash || (claim.ownerRunId === journal.run.id && claim.ownerNodeId === node.id)) {
    journal.checkpoint(node.id, 'succeeded', claim.output, ref);
    journal.event('step.duplicate', node.id, {
      ...ref, runId: claim.ownerRunId, nodeId: claim.ownerNodeId, doneAt: claim.updatedAt, output: claim.output,
    });
    return { kind: 'done', output: claim.output };
  }
  const message = `The key "${claim.key}" was already used by run ${claim.ownerRunId} for a different request, so this one was not sent. ${describeDifference(claim.request, request)} Make the key more specific (for example include the action or the item).`;
  journal.event('step.key_conflict', node.id, { ...ref, runId: claim.ownerRunId, earlier: claim.request, now: request });
  return failStep(step, message);
}

/** The fields of two requests that differ, written for a person: "body was … and is now …". */
export function describeDifference(earlier: unknown, now: unknown): string {
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const a = (earlier ?? {}) as Record<string, unknown>;
  const b = (now ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((field) => show(a[field]) !== show(b[field]));
  if (fields.length === 0) return 'The two requests look alike but were rendered differently.';
  return fields.map((field) => `Its ${field} was ${show(a[field])} and is now ${show(b[field])}.`).join(' ');
}
