/**
 * The engine's small error vocabulary. Adapters (tRPC, HTTP, CLI) map these to codes at
 * the edge; the engine never knows about status codes. Always keep `cause`.
 *
 * - UserError: the person asked for something that cannot be done as asked (bad input,
 *   unknown id, invalid flow). Shown to them as is, so the message is plain words.
 * - NotFoundError: a UserError for a missing thing.
 * - NonRetriableError: a step failed in a way that trying again cannot fix.
 * - RetryAfterError: a step failed in a way that may pass later; `retryAfterMs` is a hint.
 * - UnexpectedError: a bug or an environment fault; logged, shown as a generic sentence.
 */
export class UserError extends Error {
  override name = 'UserError';
  constructor(message: string, options?: { cause?: unknown; details?: unknown }) {
    super(message, options);
    this.details = options?.details;
  }
  readonly details: unknown;
}

export class NotFoundError extends UserError {
  override name = 'NotFoundError';
}

export class NonRetriableError extends Error {
  override name = 'NonRetriableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export class RetryAfterError extends Error {
  override name = 'RetryAfterError';
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
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
