/**
 * Where a test run's keys live. A test run (started from the editor, `onceflow run
 * --test`, or by a proof) claims every key under `test:<its test scope>:<the step's
 * scope>`, and a live run may never claim under a scope that starts with `test:`; so a
 * test for order 4417 and the real webhook for order 4417 never meet, in either
 * direction. The key a receiver gets carries the same prefix, so a real service that
 * honours keys cannot confuse a test's call with the live one either.
 */
import { UserError } from '../errors.ts';
import type { RunRow } from '../types.ts';

export const TEST_SCOPE_PREFIX = 'test:';

/**
 * The test scopes of runs started from the editor: tests there share their keys, those
 * against the stand-ins apart from those against the real services (what a stand-in did,
 * a real service has not).
 */
export const EDITOR_TEST_SCOPE = 'editor';
export const EDITOR_REAL_TEST_SCOPE = 'editor-real';

type RunMode = Pick<RunRow, 'testScope'>;

/** The scope a run claims under, given the step's own (rendered) scope. */
export function claimScopeFor(run: RunMode, stepScope: string): string {
  if (run.testScope !== null) return testScoped({ testScope: run.testScope }, stepScope);
  if (stepScope.startsWith(TEST_SCOPE_PREFIX)) {
    throw new UserError(`The key scope "${stepScope}" starts with "${TEST_SCOPE_PREFIX}", which is kept for test runs; choose another scope name.`);
  }
  return stepScope;
}

/** The key as a receiver sees it: a test run's carries its test scope. */
export function receiverKeyFor(run: RunMode, key: string): string {
  return run.testScope === null ? key : testScoped({ testScope: run.testScope }, key);
}

/** A scope of any kind (claims, entity states) as a test run sees it. */
export function testScoped(run: { testScope: string }, scope: string): string {
  return `${TEST_SCOPE_PREFIX}${run.testScope}:${scope}`;
}
