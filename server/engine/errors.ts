/**
 * The engine's small error vocabulary. Adapters (tRPC, HTTP, CLI) map these to codes at
 * the edge; the engine never knows about status codes. Always keep `cause`.
 *
 * - UserError: the person asked for something that cannot be done as asked (bad input,
 *   unknown id, invalid flow). Shown to them as is, so the message is plain words.
 * - NotFoundError: a UserError for a missing thing.
 * - NonRetriableError: a step failed in a way that trying again cannot fix. (A step that
 *   may pass later reports a `not_done` outcome instead, with its retry hint.)
 * - UnexpectedError: a bug or an environment fault; logged, shown as a generic sentence.
 *
 * The store has words of its own (store/errors.ts); `fromStoreError` says them in these.
 */
import { UserError } from '../../core/errors.ts';
import { StoreError } from '../store/errors.ts';

// One class with the shared rules (core/), so what they throw is a UserError here too.
export { UserError };

export class NotFoundError extends UserError {
  override name = 'NotFoundError';
}

export class NonRetriableError extends Error {
  override name = 'NonRetriableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export class UnexpectedError extends Error {
  override name = 'UnexpectedError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A store error in the engine's words: what the store refuses is the person's to fix. Others pass unchanged. */
export function fromStoreError(error: unknown): unknown {
  return error instanceof StoreError ? new UserError(error.message, { cause: error }) : error;
}
