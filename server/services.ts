/**
 * Wires the process: database, migrations, stores and engine services. Transports (HTTP,
 * tRPC, CLI) receive this object; nothing here knows about them.
 */
import { mkdirSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { flowService, type FlowService } from './engine/flow-service.ts';
import type { Env } from './env.ts';
import { openDatabase, type Db } from './store/db.ts';
import { flowStore } from './store/flows.ts';
import { migrate } from './store/migrate.ts';
import { createPrisma, type Prisma } from './store/prisma.ts';

export interface Services {
  env: Env;
  db: Db;
  prisma: Prisma;
  log: Logger;
  flows: FlowService;
  close(): Promise<void>;
}

export async function createServices(env: Env, log: Logger = pino({ level: env.ONCEFLOW_LOG_LEVEL })): Promise<Services> {
  if (env.databaseUrl.startsWith('file:')) mkdirSync(env.dataDir, { recursive: true });
  const db = await openDatabase(env.databaseUrl);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const prisma = createPrisma(env.databaseUrl);
  return {
    env,
    db,
    prisma,
    log,
    flows: flowService(flowStore(prisma)),
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}
