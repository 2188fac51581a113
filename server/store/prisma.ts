/**
 * Prisma clients for the ordinary, low-rate data (flows, versions, secrets). One client is
 * generated per dialect from prisma/schema.prisma; their types differ only nominally, so the
 * PostgreSQL client is cast to the SQLite client's type here, once, at the boundary.
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as PostgresClient } from './generated/postgresql/client.ts';
import { PrismaClient as SqliteClient } from './generated/sqlite/client.ts';
import { isPostgresUrl } from './db.ts';

export type Prisma = SqliteClient;

export function createPrisma(url: string): Prisma {
  if (isPostgresUrl(url)) {
    const adapter = new PrismaPg({ connectionString: url, max: 4 });
    return new PostgresClient({ adapter }) as unknown as Prisma;
  }
  const adapter = new PrismaBetterSqlite3({ url: url.replace(/^file:/, ''), timeout: 5000 });
  return new SqliteClient({ adapter });
}
