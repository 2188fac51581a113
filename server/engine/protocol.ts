/**
 * The step protocol for side-effect steps (DESIGN.md §5; see ARCHITECTURE.md for the
 * sequence). In short: render the key, claim it with one insert, act only when won, and
 * record the claim's outcome, the checkpoint and the timeline in one fenced transaction.
 * A lost claim is answered from what the winner recorded. What follows each outcome
 * (retry, fail, review) is decided in outcomes.ts, as for every other step.
 */
import { claimReference } from './claim-reference.ts';
import { readClaim, takeOverClaim, tryClaimNotingExpiry, type WonClaim } from '../store/claims.ts';
import { readExpiredKey } from '../store/expired-keys.ts';
import { decideOutcome, outcomeOfThrown, retryPolicy } from './outcomes.ts';
import { skipRecordOf, uncertainClaimMessage } from './review-decisions.ts';
import { stopIfCancelled } from './run-cancel.ts';
import { failRun, stopForReview, type HeldClaim } from './run-endings.ts';
import { checkRenderedKey } from './templates/lint-key.ts';
import { performStep } from './test-mode/perform.ts';
import { receiverKeyFor } from './test-mode/test-scope.ts';
import { fingerprint, masked, type StepExecution, type StepResult } from './step-runtime.ts';
import type { StepKind } from './steps/types.ts';
import type { ClaimRow } from './types.ts';

/** Performs the action under a won claim, retrying as the outcome decision says. */
async function act(step: StepExecution, kind: StepKind, prepared: unknown, claim: HeldClaim, how: 'won' | 'recovered' | 'retaken'): Promise<StepResult> {
  const { deps, journal, node } = step;
  const policy = retryPolicy(node, deps.config);
  const context = { policy, sideEffect: true, honoursKey: kind.honoursKey(node), onUncertain: node.data.onUncertain ?? 'review' } as const;
  const untrack = deps.claims.track(claim);
  try {
    deps.crash.check('after-claim', node.id);
    for (let attempt = 1; ; attempt++) {
      // Cancelled since the claim was won (or between tries): release the claim, act no more.
      await stopIfCancelled(deps.db, journal, node.id, claim, deps.clock);
      const outcome = await performStep(step, kind, prepared, {
        key: receiverKeyFor(journal.run, claim.key), runId: journal.run.id, flowId: step.flowId, nodeId: node.id, now: deps.clock.now, get signal() { return step.signal; }, services: deps.services,
      }).catch((error: unknown) => outcomeOfThrown(error, step.signal));
      deps.crash.check('after-act', node.id);
      const decision = decideOutcome(outcome, { ...context, attempt });
      switch (decision.action) {
        case 'record': {
          const output = masked(decision.outcome.output, step.secretValues);
          journal.checkpoint(node.id, 'succeeded', output, claim);
          journal.event('step.succeeded', node.id, { key: claim.key, scope: claim.scope, output, via: how });
          await journal.flush({ claim: { ...claim, status: 'succeeded', output } });
          deps.crash.check('after-checkpoint', node.id);
          return { kind: 'done', output };
        }
        case 'retry':
          journal.event('step.retry_scheduled', node.id, { message: decision.message, retry: attempt, delayMs: decision.delayMs, key: claim.key });
          await deps.clock.sleep(decision.delayMs);
          continue;
        case 'review':
          return stopForReview(journal, node.id, decision.message, claim, { response: decision.response });
        case 'fail':
          return failRun(journal, node.id, decision.message, { claim, details: { response: decision.response } });
        case 'park':
          throw new Error('A side effect cannot park its run; decideOutcome fails it instead.');
      }
    }
  } finally {
    untrack();
  }
}

export async function runSideEffectStep(step: StepExecution, kind: StepKind, prepared: unknown): Promise<StepResult> {
  const { deps, journal, node, render } = step;
  // Strict: a missing path or an unusable key fails the step before anything is claimed.
  const { scope, key, ttlMs } = claimReference(node, journal.run, (template) => render.text(template), deps.config.keyTtlMs);
  checkRenderedKey(key);
  const request = masked(kind.describe(prepared), step.secretValues);
  const hash = fingerprint(request);
  const runId = journal.run.id;
  let announcedWait = false;
  let waitedMs = 0;

  for (;;) {
    const now = deps.clock.now();
    const leaseUntil = now + deps.config.claimLeaseMs;
    const claimStarted = performance.now();
    const won = await deps.db.durably((sql) => tryClaimNotingExpiry(sql, {
      scope, key, fingerprint: hash, request, runId, nodeId: node.id, leaseUntil, expiresAt: now + ttlMs, now,
    }));
    deps.metrics?.claimLatency((performance.now() - claimStarted) / 1000);
    if (won !== undefined) {
      await noteExpiredKey(step, { scope, key }, won);
      return act(step, kind, prepared, { scope, key, fence: won.fence }, 'won');
    }

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
        const skipped = skipRecordOf(claim.output);
        return stopForReview(journal, node.id, uncertainClaimMessage(claim, runId, now), { scope, key }, {
          runId: claim.ownerRunId, ...(skipped ? { skippedBy: skipped } : {}),
        });
      }
      case 'in_progress': {
        if (claim.leaseUntil < now) {
          // The holder died between its claim and its record.
          const taken = await deps.db.durably((sql) => takeOverClaim(sql, claim, owner));
          if (taken === undefined) continue;
          deps.metrics?.leaseTakeOver('claim');
          const claimed = { scope, key, fence: taken };
          if (kind.honoursKey(node)) {
            journal.event('step.recovered', node.id, { key, scope, previousRunId: claim.ownerRunId, message: 'The earlier attempt stopped before recording its outcome; trying again with the same key, which the receiver honours.' });
            return act(step, kind, prepared, claimed, 'recovered');
          }
          return stopForReview(journal, node.id, 'An earlier attempt stopped after claiming this step and before recording what happened; the receiver does not honour keys, so it will not be repeated on a guess.', claimed, { previousRunId: claim.ownerRunId });
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

/**
 * The key had been done before and expired, so this step acts again: the timeline says so
 * at the step, with when the work was done and when its key expired, as the preview did.
 */
async function noteExpiredKey(step: StepExecution, ref: { scope: string; key: string }, won: WonClaim): Promise<void> {
  if (won.fence === 1 && won.sweptExpiry === null) return;
  const { deps, journal, node } = step;
  // Fence 1: the key was swept and its record says who did the work. Above 1: an expired
  // claim the sweeper had not reached yet was replaced, so only its expiry is known.
  const record = won.fence === 1 ? await readExpiredKey(deps.db, ref.scope, ref.key) : undefined;
  journal.event('step.key_expired', node.id, {
    ...ref,
    ...(record ? { expiredAt: record.expiredAt, doneAt: record.doneAt, runId: record.runId } : {}),
  });
}

/** Lost the claim to a finished step: reuse its result, or refuse when the inputs differ. */
export async function answerFromRecord(step: StepExecution, claim: ClaimRow, hash: string, request: unknown): Promise<StepResult> {
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
  return failRun(journal, node.id, message);
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
