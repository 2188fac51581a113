/**
 * Prisma clients for the ordinary, low-rate data (flows, versions, secrets). One client is
 * generated per dialect from prisma/schema.prisma; their types differ only nominally, so the
 * PostgreSQL client is cast to the SQLite client's type here, once, at the boundary.
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient as PostgresClient } from './generated/postgresql/client.ts';
import { PrismaClient as SqliteClient } from './generated/sqlite/client.ts';
import { isPostgresUrl } from './db.ts';

export type Prisma = SqliteClient;

export interface PrismaHandle {
  prisma: Prisma;
  close(): Promise<void>;
}

export function createPrisma(url: string): PrismaHandle {
  if (isPostgresUrl(url)) {
    // Our own pool, so an idle connection dropped by the server (a restart, a failover)
    // is an event we handle instead of an error that ends the process.
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on('error', () => {});
    const prisma = new PostgresClient({ adapter: new PrismaPg(pool) }) as unknown as Prisma;
    return {
      prisma,
      async close() {
        await prisma.$disconnect();
        await pool.end().catch(() => {});
      },
    };
  }
  const prisma = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: url.replace(/^file:/, ''), timeout: 5000 }) });
  return { prisma, close: () => prisma.$disconnect() };
}
