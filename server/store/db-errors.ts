import { DatabaseOpenError } from './errors.ts';

/** One sentence on what is wrong with the SQLite file and what to do about it. */
export function sqliteOpenError(path: string, error: unknown): DatabaseOpenError {
  const code = (error as { code?: string }).code ?? '';
  const text = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || /not a database|malformed/i.test(text)) {
    return new DatabaseOpenError(
      `The database file ${path} is damaged or is not an Onceflow database; move it aside (or restore a backup) and start again.`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_CANTOPEN' || /unable to open|directory does not exist/i.test(text)) {
    return new DatabaseOpenError(
      `The database file ${path} cannot be opened; check that its folder exists and is writable (set ONCEFLOW_DATA_DIR to choose another folder).`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_READONLY' || /readonly/i.test(text)) {
    return new DatabaseOpenError(`The database file ${path} is read-only; give this user write access to it.`, { cause: error });
  }
  return new DatabaseOpenError(`The database file ${path} could not be opened (${text}).`, { cause: error });
}

export function postgresOpenError(url: string, error: unknown): DatabaseOpenError {
  const code = (error as { code?: string }).code ?? '';
  const text = error instanceof Error ? error.message : String(error);
  const where = redactUrl(url);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || /timeout/i.test(text)) {
    return new DatabaseOpenError(
      `The PostgreSQL server at ${where} cannot be reached; check that it is running and that DATABASE_URL is right.`,
      { cause: error },
    );
  }
  if (code === '3D000') {
    return new DatabaseOpenError(`The PostgreSQL database in ${where} does not exist; create it (createdb) or fix DATABASE_URL.`, { cause: error });
  }
  if (code === '28P01' || code === '28000') {
    return new DatabaseOpenError(`PostgreSQL refused the login in ${where}; check the user and password in DATABASE_URL.`, { cause: error });
  }
  return new DatabaseOpenError(`The PostgreSQL database at ${where} could not be opened (${text}).`, { cause: error });
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

/**
 * Why the database refused a value that came from outside, or null when the error is of
 * another kind. PostgreSQL answers class 22 ("data exception": a NUL byte, a number out
 * of a column's range, text that is not a number) and class 54 ("program limit
 * exceeded": a value too large for an index) for values no query could use; those are
 * the sender's to fix, never a server fault. Looks through `cause` chains.
 */
export function refusedValue(error: unknown): 'invalid' | 'too-large' | null {
  const code = sqlState(error);
  if (!code) return null;
  if (code.startsWith('22')) return 'invalid';
  if (code.startsWith('54')) return 'too-large';
  return null;
}

/** One sentence for a person about a value the database refused. */
export function refusedValueMessage(kind: 'invalid' | 'too-large'): string {
  return kind === 'invalid'
    ? 'Something sent cannot be stored or searched for (for example a NUL character, or a number larger than any run number); change it and try again.'
    : 'Something sent is too large for the database (for example a very long name or id); shorten it and try again.';
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

function sqlState(error: unknown, depth = 0): string | null {
  if (!error || typeof error !== 'object' || depth > 5) return null;
  const candidate = error as { code?: unknown; severity?: unknown; cause?: unknown };
  // pg's DatabaseError carries the SQLSTATE in `code` next to a `severity`.
  if (typeof candidate.code === 'string' && SQLSTATE.test(candidate.code) && typeof candidate.severity === 'string') return candidate.code;
  return sqlState(candidate.cause, depth + 1);
}
