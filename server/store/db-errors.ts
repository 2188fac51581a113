import { UserError } from '../engine/errors.ts';

/** One sentence on what is wrong with the SQLite file and what to do about it. */
export function sqliteOpenError(path: string, error: unknown): UserError {
  const code = (error as { code?: string }).code ?? '';
  const text = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || /not a database|malformed/i.test(text)) {
    return new UserError(
      `The database file ${path} is damaged or is not an Onceflow database; move it aside (or restore a backup) and start again.`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_CANTOPEN' || /unable to open|directory does not exist/i.test(text)) {
    return new UserError(
      `The database file ${path} cannot be opened; check that its folder exists and is writable (set ONCEFLOW_DATA_DIR to choose another folder).`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_READONLY' || /readonly/i.test(text)) {
    return new UserError(`The database file ${path} is read-only; give this user write access to it.`, { cause: error });
  }
  return new UserError(`The database file ${path} could not be opened (${text}).`, { cause: error });
}

export function postgresOpenError(url: string, error: unknown): UserError {
  const code = (error as { code?: string }).code ?? '';
  const text = error instanceof Error ? error.message : String(error);
  const where = redactUrl(url);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || /timeout/i.test(text)) {
    return new UserError(
      `The PostgreSQL server at ${where} cannot be reached; check that it is running and that DATABASE_URL is right.`,
      { cause: error },
    );
  }
  if (code === '3D000') {
    return new UserError(`The PostgreSQL database in ${where} does not exist; create it (createdb) or fix DATABASE_URL.`, { cause: error });
  }
  if (code === '28P01' || code === '28000') {
    return new UserError(`PostgreSQL refused the login in ${where}; check the user and password in DATABASE_URL.`, { cause: error });
  }
  return new UserError(`The PostgreSQL database at ${where} could not be opened (${text}).`, { cause: error });
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
