/**
 * Applies the committed SQL migrations of prisma/migrations/<dialect>/ in name order,
 * each exactly once and in its own transaction, recorded in `_onceflow_migrations`.
 * Several processes may start at once on PostgreSQL: an advisory lock makes them take
 * turns, and each re-checks what is applied inside its transaction.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

const MIGRATIONS_ROOT = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const ADVISORY_LOCK = 727_311;

export interface Migration {
  name: string;
  sql: string;
}

export function loadMigrations(dialect: Db['dialect']): Migration[] {
  const folder = join(MIGRATIONS_ROOT, dialect);
  return readdirSync(folder)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file.replace(/\.sql$/, ''), sql: readFileSync(join(folder, file), 'utf8') }));
}

/** Returns the names of the migrations this call applied. */
export async function migrate(db: Db): Promise<string[]> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS _onceflow_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)',
  );
  const applied: string[] = [];
  for (const migration of loadMigrations(db.dialect)) {
    const done = await db.transaction(async (tx) => {
      if (tx.dialect === 'postgresql') await tx.all('SELECT pg_advisory_xact_lock(?)', [ADVISORY_LOCK]);
      const existing = await tx.get('SELECT name FROM _onceflow_migrations WHERE name = ?', [migration.name]);
      if (existing) return false;
      await tx.exec(migration.sql);
      await tx.run('INSERT INTO _onceflow_migrations (name, applied_at) VALUES (?, ?)', [migration.name, Date.now()]);
      return true;
    });
    if (done) applied.push(migration.name);
  }
  return applied;
}
