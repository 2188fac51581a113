/**
 * Where a side-effect step claims its key: the rendered key, in the step's scope, kept
 * for the step's keep time. The protocol claims with it and the rerun preview looks the
 * claim up with it, so both always name the same row.
 */
import { parseDuration } from '../../core/duration.ts';
import { renderTemplate, type RenderContext } from '../../core/templates/render.ts';
import type { TypedStep } from './flow/planned-step.ts';
import { claimScopeFor } from './test-mode/test-scope.ts';
import type { RunRow } from './types.ts';

export interface ClaimReference {
  scope: string;
  key: string;
  /** How long the key is remembered once claimed (default: ONCEFLOW_KEY_TTL, 30 days). */
  ttlMs: number;
}

const DEFAULT_KEY_TTL_MS = 30 * 86_400_000;

/**
 * Renders with `render`, which is strict: a missing path throws. The scope is the
 * step's own (`flowId:nodeId`, the same for every item of a For each) unless the person
 * named a shared one (`keyScope`); a test run's is kept apart from live ones
 * (test-mode/test-scope.ts).
 */
export function claimReference(
  step: TypedStep,
  run: Pick<RunRow, 'flowId' | 'testScope'>,
  render: (template: string) => string,
  defaultTtlMs = DEFAULT_KEY_TTL_MS,
): ClaimReference {
  const { key, keyScope, keyTtl } = step.data;
  return {
    key: render(key ?? ''),
    scope: claimScopeFor(run, keyScope ? render(keyScope) : `${run.flowId}:${step.bodyStepId ?? step.id}`),
    ttlMs: keyTtl ? parseDuration(keyTtl) : defaultTtlMs,
  };
}

/**
 * The claim a preview looks up, rendered from the run's data so far (a loop's item
 * included); null when the key needs a step that has not run yet, which is known only
 * when the rerun gets there.
 */
export function previewClaimReference(step: TypedStep, context: RenderContext, run: RunRow): ClaimReference | null {
  try {
    return claimReference(step, run, (template) => renderTemplate(template, context));
  } catch {
    return null;
  }
}
