/**
 * What the store refuses, in plain words. A `StoreError` is something a person can fix
 * (a damaged file, a database that cannot be reached, a request that names a state the
 * step does not list); the engine turns it into its own vocabulary (engine/errors.ts).
 * Any other error from here is a fault. Always keeps `cause`.
 */
export class StoreError extends Error {
  override name = 'StoreError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The database cannot be opened; the message says why and what to do. */
export class DatabaseOpenError extends StoreError {
  override name = 'DatabaseOpenError';
}

/** A request the store cannot carry out as asked. */
export class InvalidRequestError extends StoreError {
  override name = 'InvalidRequestError';
}
