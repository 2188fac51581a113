/**
 * The one error the shared rules throw: what a person wrote cannot be used as written (a
 * template that does not parse, a value it names that is missing, a length of time that
 * is not one). The message is shown to them as is, so it is plain words.
 *
 * The server's error vocabulary (server/engine/errors.ts) takes this very class as its
 * UserError, so an error thrown here is a UserError everywhere on the server and reaches
 * the person the same way; keep `cause`.
 */
export class UserError extends Error {
  override name = 'UserError';
  constructor(message: string, options?: { cause?: unknown; details?: unknown }) {
    super(message, options);
    this.details = options?.details;
  }
  readonly details: unknown;
}
