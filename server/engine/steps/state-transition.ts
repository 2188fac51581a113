/**
 * state.transition (DESIGN.md §7): moves an entity forward through ordered states. An
 * event that would move it backwards or sideways is stale: skipped, and by default the
 * branch stops so no side effect follows it. `requires` parks the run until the entity
 * reaches a prerequisite state, or fails it after `requiresTimeout` (default: 1 h).
 */
import { parseDuration } from '../../../core/duration.ts';
import { UserError } from '../errors.ts';
import type { StepKind } from './types.ts';

interface Transition {
  entity: string;
  states: string[];
  to: string;
  onStale: 'stop' | 'continue';
  requires?: string;
  requiresTimeoutMs: number;
  scope?: string;
}

const DEFAULT_REQUIRES_TIMEOUT = '1h';

export const stateTransitionStep: StepKind<'state.transition', Transition> = {
  type: 'state.transition',
  prepare({ data }, render) {
    return {
      entity: render.text(data.entity),
      states: data.states,
      to: render.text(data.to),
      onStale: data.onStale === 'continue' ? 'continue' : 'stop',
      requires: data.requires ? render.text(data.requires) : undefined,
      requiresTimeoutMs: parseDuration(data.requiresTimeout ?? DEFAULT_REQUIRES_TIMEOUT),
      scope: data.keyScope ? render.text(data.keyScope) : undefined,
    };
  },
  describe: ({ entity, to }) => ({ entity, to }),
  async execute(transition, io) {
    if (!io.services.transitionEntity) throw new UserError('State transitions are not available on this server.');
    const now = io.now();
    const result = await io.services.transitionEntity({
      scope: transition.scope ?? io.flowId,
      entity: transition.entity,
      states: transition.states,
      to: transition.to,
      requires: transition.requires,
      appliedBy: `${io.runId}/${io.nodeId}`,
      now,
    });
    if (result.applied) {
      return { kind: 'succeeded', output: { entity: transition.entity, applied: true, from: result.from, to: result.to, version: result.version } };
    }
    if (result.blocked) {
      const since = (io.previous?.status === 'waiting' ? (io.previous.output as { since?: number } | null)?.since : undefined) ?? now;
      if (now - since >= transition.requiresTimeoutMs) {
        return { kind: 'failed', message: `Waited ${Math.round((now - since) / 1000)} s for ${transition.entity} to reach "${transition.requires}"; it is still ${result.current ?? 'unknown'}.` };
      }
      const pause = Math.min(30_000, Math.max(500, Math.floor((now - since) / 4)));
      return {
        kind: 'wait',
        until: Math.min(now + pause, since + transition.requiresTimeoutMs),
        output: { since, waitingFor: transition.requires },
        message: `Waiting for ${transition.entity} to reach "${transition.requires}" (it is ${result.current ?? 'not known yet'}).`,
      };
    }
    const output = { entity: transition.entity, applied: false, current: result.current, ignored: transition.to };
    if (transition.onStale === 'continue') return { kind: 'succeeded', output };
    return { kind: 'succeeded', output, stop: true, skipReason: 'stale' };
  },
  honoursKey: () => false,
};
