/**
 * Real databases for tests: a fresh SQLite file, and a fresh PostgreSQL database on the
 * server of TEST_DATABASE_URL when it is set. Suites iterate `testDatabases()` so the same
 * assertions run on both engines.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface TestDatabaseKind {
  name: 'sqlite' | 'postgresql';
  create(): Promise<TestDatabase>;
}

export function createSqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-test-'));
  return {
    url: `file:${join(dir, 'onceflow.db')}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function createPostgresDatabase(baseUrl: string): Promise<TestDatabase> {
  const name = `onceflow_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export function testDatabases(): TestDatabaseKind[] {
  const kinds: TestDatabaseKind[] = [{ name: 'sqlite', create: async () => createSqliteDatabase() }];
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) kinds.push({ name: 'postgresql', create: () => createPostgresDatabase(pgUrl) });
  return kinds;
}
