/** For a describe block: a fresh database of one kind, migrated before its tests and dropped after. */
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Db } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import type { TestDatabase, TestDatabaseKind } from './databases.ts';

export function useMigratedDatabase(kind: TestDatabaseKind): () => Db {
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await kind.create();
    db = await openDatabase(database.url);
    await migrate(db);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });
  return () => {
    if (!db) throw new Error('the test database is not open yet');
    return db;
  };
}
